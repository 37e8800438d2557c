-- A history for scripts/bench-hub: :stores busy stores (numbered from :first + 1, one totem and
-- door "main" each) with :days days of events up to yesterday, written straight into the
-- hub's tables as ingest leaves them: the events (passages' payloads as clupd encodes
-- them, without the ticket a holder came in with; the ticket events' payloads abridged:
-- the panel reads none of them), their daily
-- partitions, and the projections the panel reads (occupancy, occupancy_quarter, ticket).
--
-- A busy store's day, open 08:00 to 20:00 UTC: 800 people in and 800 out through the
-- turnstile (200 of them with a ticket), and 200 tickets, each issued, printed, called and
-- admitted: 2,400 events a day.
--
-- usage: psql -v stores=50 -v days=90 -v first=200000 -f hub-history.sql   (stores 200001…200050)
\set ON_ERROR_STOP on
SET client_min_messages = warning;

-- The days' partitions, named as the hub names them (HubDatabase.ensurePartitions).
SELECT format('CREATE TABLE IF NOT EXISTS %s_%s PARTITION OF %s FOR VALUES FROM (%L) TO (%L)',
              t, to_char(d, 'YYYYMMDD'), t, d, d + 1)
FROM generate_series(current_date - :days, current_date - 1, interval '1 day') AS g(d0),
     LATERAL (SELECT d0::date AS d) AS day, unnest(ARRAY['event', 'ticket']) AS t
\gexec

BEGIN;
INSERT INTO store (store_id, name, capacity)
SELECT (:first + s)::text, 'history ' || s, 150 FROM generate_series(1, :stores) AS s;
INSERT INTO totem (device_id, store_id, letter, door, device_key, ticket_key, software_version)
SELECT 'store-' || (:first + s)::text || '-totem-A-history', (:first + s)::text, 'A', 'main', decode(md5('d' || s) || md5('e' || s), 'hex'), decode(md5('t' || s) || md5('u' || s), 'hex'), 'history'
FROM generate_series(1, :stores) AS s;
INSERT INTO device_cursor (store_id, device_id, acknowledged, highest)
SELECT (:first + s)::text, 'store-' || (:first + s)::text || '-totem-A-history', :days * 2400, :days * 2400 FROM generate_series(1, :stores) AS s;
COMMIT;

-- Each store's day: n = 0…1599 passages (even n in, odd n out, spread over 12 hours), and
-- t = 0…199 tickets (issued, printed, called, admitted, then entered; every tenth a
-- priority ticket). seq runs on across the days.
CREATE TEMPORARY TABLE history_day AS
SELECT s, d::date AS day, (d::date - (current_date - :days)) AS index,
       extract(epoch FROM d::date + time '08:00')::double precision AS opens
FROM generate_series(1, :stores) AS s, generate_series(current_date - :days, current_date - 1, interval '1 day') AS d;

INSERT INTO event (store_id, business_day, device_id, seq, wall_time, type, payload, content_hash)
SELECT (:first + h.s)::text, h.day, 'store-' || (:first + h.s)::text || '-totem-A-history', h.index * 2400 + n + 1, to_timestamp(h.opens + n * 27),
       'occupancy.passage', p, md5(p)
FROM history_day h, generate_series(0, 1599) AS n,
     LATERAL (SELECT format('{"passage":{"at":%s,"businessDay":{"date":"%s"},"direction":"%s","door":"main"}}',
                            h.opens + n * 27 - 978307200, h.day, CASE WHEN n % 2 = 0 THEN 'in' ELSE 'out' END) AS p) AS payload;

INSERT INTO event (store_id, business_day, device_id, seq, wall_time, type, payload, content_hash)
SELECT (:first + h.s)::text, h.day, 'store-' || (:first + h.s)::text || '-totem-A-history', h.index * 2400 + 1600 + t * 4 + k + 1,
       to_timestamp(h.opens + t * 216 - 900 + k * 300), kind, p, md5(p)
FROM history_day h, generate_series(0, 199) AS t, generate_series(0, 3) AS k,
     LATERAL (SELECT (ARRAY['ticket.issued', 'ticket.printed', 'ticket.called', 'ticket.admitted'])[k + 1] AS kind) AS named,
     LATERAL (SELECT format('{"%s":{"businessDay":{"date":"%s"},"number":"%s","at":%s}}', kind, h.day,
                            CASE WHEN t % 10 = 0 THEN 'AP-' ELSE 'A-' END || lpad((t + 1)::text, 3, '0'), h.opens + t * 216 - 900 + k * 300 - 978307200) AS p) AS payload;

INSERT INTO occupancy (store_id, business_day, door, carried, entries, exits, corrections)
SELECT (:first + s)::text, day, 'main', 0, 800, 800, 0 FROM history_day;

INSERT INTO occupancy_quarter (store_id, business_day, door, quarter, entries, exits, corrections)
SELECT (:first + h.s)::text, h.day, 'main', floor((h.opens + n * 27) / 900)::bigint,
       count(*) FILTER (WHERE n % 2 = 0), count(*) FILTER (WHERE n % 2 = 1), 0
FROM history_day h, generate_series(0, 1599) AS n
GROUP BY 1, 2, 4;

INSERT INTO ticket (store_id, business_day, number, device_id, lane, state, issued_at, called_at, admitted_at, entered_at,
                    left_at, promised_wait_minutes)
SELECT (:first + h.s)::text, h.day, CASE WHEN t % 10 = 0 THEN 'AP-' ELSE 'A-' END || lpad((t + 1)::text, 3, '0'), 'store-' || (:first + h.s)::text || '-totem-A-history',
       CASE WHEN t % 10 = 0 THEN 'priority' ELSE 'regular' END, 'entered',
       to_timestamp(h.opens + t * 216 - 900), to_timestamp(h.opens + t * 216 - 300), to_timestamp(h.opens + t * 216),
       to_timestamp(h.opens + t * 216 + 20), to_timestamp(h.opens + t * 216 + 1500 + (t % 7) * 120), 12
FROM history_day h, generate_series(0, 199) AS t;

ANALYZE event;
ANALYZE occupancy;
ANALYZE occupancy_quarter;
ANALYZE ticket;
