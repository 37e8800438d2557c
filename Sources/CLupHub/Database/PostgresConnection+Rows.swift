import PostgresNIO

/// Rows read to the end, decoded, before the connection's next statement: a row stream
/// left half-read would stand in the way of the next one.
extension PostgresConnection {
    /// Every row of `query` as a tuple of columns.
    func rows<each Column: PostgresDecodable & Sendable>(_ query: PostgresQuery, as types: (repeat each Column).Type,
                                                         _ logger: Logger) async throws -> [(repeat each Column)] {
        var rows: [(repeat each Column)] = []
        for try await row in try await self.query(query, logger: logger).decode((repeat each Column).self) { rows.append(row) }
        return rows
    }

    /// Every row of `query`, decoded: read to the end before the connection's next statement.
    func all<T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: T.Type, _ logger: Logger) async throws -> [T] {
        var values: [T] = []
        for try await (value) in try await self.query(query, logger: logger).decode(T.self) { values.append(value) }
        return values
    }
}
