import CLupCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird

/// Serves the published repository at `/repo` to apt on the totems: plain files, the whole
/// of each every time (no conditional answers: an index republished within the same second
/// as the last one is never taken for unchanged), only regular files inside the published
/// directory. Nothing here is secret (the chain's software); apt trusts it only through the
/// release key's signature.
struct RepositoryFiles: Sendable {
    let releases: ReleaseRepository

    func addRoutes(to router: Router<HubRequestContext>) {
        router.get("\(ReleaseRepository.urlPath)/**") { request, context in
            try await file(request, context)
        }
    }

    func file(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        guard let path = Self.relativePath(request.uri.path), let found = Self.regularFile(path, in: releases.publishedDirectory) else {
            throw HubError(.notFound, .badHubRequest, "no such file in the repository")
        }
        let body = try await FileIO().loadFile(path: found.path, context: context)
        return Response(status: .ok, headers: [.contentType: "application/octet-stream", .contentLength: String(found.size),
                                               .cacheControl: "no-cache"], body: body)
    }

    /// The path asked for below `/repo`, if it is one apt would ask for: names of letters,
    /// digits and `._+~-`, none of them `.` or `..`.
    /// apt asks for `clup-totem_0.12.0%2bupdate1_amd64.deb`: the path is decoded first.
    static func relativePath(_ rawPath: String) -> String? {
        guard rawPath.utf8.count <= 512, let uriPath = rawPath.removingPercentEncoding,
              uriPath.hasPrefix(ReleaseRepository.urlPath + "/") else { return nil }
        let parts = uriPath.dropFirst(ReleaseRepository.urlPath.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ part in
            !part.isEmpty && part != "." && part != ".." && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._+~-".contains($0)) }
        }) else { return nil }
        return parts.joined(separator: "/")
    }

    /// The file at `path` under `root`, if it is a regular file whose real place is under
    /// `root` (a link out of it is not followed), and its size.
    static func regularFile(_ path: String, in root: String) -> (path: String, size: Int)? {
        guard let base = realpath(root, nil) else { return nil }
        defer { free(base) }
        guard let resolved = realpath(root + "/" + path, nil) else { return nil }
        defer { free(resolved) }
        let top = String(cString: base), full = String(cString: resolved)
        guard full.hasPrefix(top + "/"), let size = ReleaseRepository.regularFileSize(full), let bytes = Int(exactly: size) else {
            return nil
        }
        return (full, bytes)
    }
}
