import Foundation

/// The hub's schema, as append-only SQL: a migration once released is never edited, only
/// followed by another. `clup-hub migrate` applies the missing ones in order, each in its
/// own transaction, and records it in `schema_migration`.
///
/// Tables that grow with traffic (`event`, `ticket`) carry `store_id` first in their
/// primary key and are partitioned by business day, so that a chain that outgrows one
/// PostgreSQL distributes them by `store_id` (Citus) without a schema change, and old days
/// are detached whole. Their daily partitions are made by the hub before it writes into a
/// day (`HubDatabase.ensurePartitions`).
enum HubMigrations {
    static let all: [(version: Int, name: String, sql: String)] = [
        (1, "stores, totems, enrolment codes, nonces, events, dead letters, projections", """
            CREATE TABLE store (
                -- A store is numbered: its number is signed into every ticket's code.
                store_id text PRIMARY KEY CHECK (store_id ~ '^[1-9][0-9]{0,8}$'),
                name text NOT NULL,
                capacity integer NOT NULL CHECK (capacity BETWEEN 1 AND 100000),
                created_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE TABLE totem (
                device_id text PRIMARY KEY,
                store_id text NOT NULL REFERENCES store,
                letter text NOT NULL CHECK (letter ~ '^[A-Z]$'),
                door text NOT NULL,
                device_key bytea NOT NULL CHECK (length(device_key) = 32),
                ticket_key bytea NOT NULL CHECK (length(ticket_key) = 32),
                software_version text NOT NULL,
                enrolled_at timestamptz NOT NULL DEFAULT now(),
                revoked_at timestamptz,
                last_contact timestamptz,
                last_outbox_depth bigint,
                last_clock_skew double precision
            );
            CREATE UNIQUE INDEX totem_letter_in_store ON totem (store_id, letter) WHERE revoked_at IS NULL;
            CREATE TABLE enrolment_code (
                code_hash bytea PRIMARY KEY,
                store_id text NOT NULL REFERENCES store,
                letter text NOT NULL CHECK (letter ~ '^[A-Z]$'),
                door text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                expires_at timestamptz NOT NULL,
                used_at timestamptz,
                used_by text
            );
            -- Nonces of signed requests, kept for the replay window (and purged after it).
            CREATE TABLE request_nonce (
                device_id text NOT NULL,
                nonce text NOT NULL,
                seen_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (device_id, nonce)
            );
            CREATE INDEX request_nonce_seen ON request_nonce (seen_at);
            -- How far each totem's log is held without a gap: the answer to every batch.
            CREATE TABLE device_cursor (
                store_id text NOT NULL,
                device_id text NOT NULL REFERENCES totem,
                acknowledged bigint NOT NULL DEFAULT 0,
                PRIMARY KEY (store_id, device_id)
            );
            -- Every totem event, as the totem stored it, once per (device_id, seq).
            CREATE TABLE event (
                store_id text NOT NULL,
                business_day date NOT NULL,
                device_id text NOT NULL,
                seq bigint NOT NULL,
                wall_time timestamptz NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                type text NOT NULL,
                payload text NOT NULL,
                content_hash text NOT NULL,
                PRIMARY KEY (store_id, device_id, seq, business_day)
            ) PARTITION BY RANGE (business_day);
            -- The events the hub could not apply, with why; acknowledged all the same.
            CREATE TABLE dead_letter (
                store_id text NOT NULL,
                device_id text NOT NULL,
                seq bigint NOT NULL,
                received_at timestamptz NOT NULL DEFAULT now(),
                type text NOT NULL,
                payload text NOT NULL,
                content_hash text NOT NULL,
                reason text NOT NULL,
                -- A seq received twice with different contents is two dead letters.
                PRIMARY KEY (store_id, device_id, seq, content_hash)
            );
            -- Projections, updated in the batch's transaction.
            CREATE TABLE occupancy (
                store_id text NOT NULL,
                business_day date NOT NULL,
                door text NOT NULL,
                carried integer NOT NULL DEFAULT 0,
                entries integer NOT NULL DEFAULT 0,
                exits integer NOT NULL DEFAULT 0,
                corrections integer NOT NULL DEFAULT 0,
                PRIMARY KEY (store_id, business_day, door)
            );
            CREATE TABLE ticket (
                store_id text NOT NULL,
                business_day date NOT NULL,
                number text NOT NULL,
                device_id text NOT NULL,
                lane text NOT NULL,
                state text NOT NULL,
                issued_at timestamptz NOT NULL,
                called_at timestamptz,
                admitted_at timestamptz,
                entered_at timestamptz,
                PRIMARY KEY (store_id, business_day, number)
            ) PARTITION BY RANGE (business_day);
            """),
        (2, "versioned store settings sent down to the totems", """
            ALTER TABLE store ADD COLUMN settings_version bigint NOT NULL DEFAULT 1;
            ALTER TABLE store ADD COLUMN priority_share double precision NOT NULL DEFAULT 0.1
                CHECK (priority_share BETWEEN 0 AND 1);
            ALTER TABLE store ADD COLUMN booking_share double precision NOT NULL DEFAULT 0.3
                CHECK (booking_share BETWEEN 0 AND 1);
            ALTER TABLE store ADD CONSTRAINT store_shares CHECK (priority_share + booking_share <= 1);
            ALTER TABLE totem ADD COLUMN applied_settings_version bigint;
            """),
        (3, "the store's capacity shared among its doors; tickets admitted at another door", """
            -- What the hub knows of each door's totem for CapacityEscrow: its last report and
            -- the limits sent to it and confirmed by it.
            CREATE TABLE door_grant (
                store_id text NOT NULL,
                device_id text NOT NULL REFERENCES totem,
                held integer NOT NULL DEFAULT 0,
                held_seq bigint NOT NULL DEFAULT 0,
                waiting integer NOT NULL DEFAULT 0,
                issued_limit integer NOT NULL DEFAULT 0,
                issued_version bigint NOT NULL DEFAULT 0,
                outstanding_max integer NOT NULL DEFAULT 0,
                confirmed_limit integer NOT NULL DEFAULT 0,
                confirmed_version bigint NOT NULL DEFAULT 0,
                confirmed_seq bigint NOT NULL DEFAULT 0,
                PRIMARY KEY (store_id, device_id)
            );
            ALTER TABLE ticket ADD COLUMN admitted_by text;
            """),
        (4, "the windows and the slot length among the store settings", """
            ALTER TABLE store ADD COLUMN presentation_minutes double precision NOT NULL DEFAULT 5
                CHECK (presentation_minutes BETWEEN 0.5 AND 240);
            ALTER TABLE store ADD COLUMN booking_early_minutes double precision NOT NULL DEFAULT 10
                CHECK (booking_early_minutes BETWEEN 0.5 AND 240);
            ALTER TABLE store ADD COLUMN booking_late_minutes double precision NOT NULL DEFAULT 15
                CHECK (booking_late_minutes BETWEEN 0.5 AND 240);
            ALTER TABLE store ADD COLUMN slot_minutes double precision NOT NULL DEFAULT 30 CHECK (slot_minutes BETWEEN 5 AND 240);
            """),
        (5, "bookings made through the hub, the store's opening hours, notices for an SMS gateway", """
            -- The store's booking key (an Ed25519 private key's 32 bytes), made with its first
            -- booking; its public half is sent to the store's totems as the key of letter Z.
            ALTER TABLE store ADD COLUMN booking_key bytea CHECK (length(booking_key) = 32);
            -- Slots are offered from opening to closing, in the store's time zone.
            ALTER TABLE store ADD COLUMN opens_minute integer NOT NULL DEFAULT 480 CHECK (opens_minute BETWEEN 0 AND 1439);
            ALTER TABLE store ADD COLUMN closes_minute integer NOT NULL DEFAULT 1200 CHECK (closes_minute BETWEEN 1 AND 1440);
            ALTER TABLE store ADD CONSTRAINT store_hours CHECK (opens_minute < closes_minute);
            ALTER TABLE store ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';
            -- A booking: numbered per store and slot day (ZB-001 ...); nothing personal, only
            -- the opaque reference the app gave.
            CREATE TABLE booking (
                store_id text NOT NULL REFERENCES store,
                slot_day date NOT NULL,
                seq integer NOT NULL CHECK (seq BETWEEN 1 AND 65535),
                number text NOT NULL,
                slot_start timestamptz NOT NULL,
                customer_ref text NOT NULL,
                for_someone_else boolean NOT NULL DEFAULT false,
                code text NOT NULL,
                booked_at timestamptz NOT NULL DEFAULT now(),
                cancelled_at timestamptz,
                PRIMARY KEY (store_id, slot_day, seq)
            );
            CREATE INDEX booking_slot ON booking (store_id, slot_start) WHERE cancelled_at IS NULL;
            -- Notices to customers (a booking cancelled, a store running late) for an SMS
            -- gateway, which marks them sent.
            CREATE TABLE notice (
                notice_id bigserial PRIMARY KEY,
                store_id text NOT NULL REFERENCES store,
                customer_ref text NOT NULL,
                kind text NOT NULL CHECK (kind IN ('cancelled', 'delayed')),
                booking_number text NOT NULL,
                slot_start timestamptz NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                sent_at timestamptz
            );
            """),
        (6, "the managers of the web panel, their sessions, the audit of changes", """
            CREATE TABLE manager (
                name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9._-]{1,31}$'),
                -- bcrypt; the password itself is never kept.
                password_hash text NOT NULL,
                role text NOT NULL CHECK (role IN ('chain-admin', 'store-manager')),
                store_id text REFERENCES store,
                failed_logins integer NOT NULL DEFAULT 0,
                locked_until timestamptz,
                created_at timestamptz NOT NULL DEFAULT now(),
                CHECK ((role = 'store-manager') = (store_id IS NOT NULL))
            );
            -- A session: the SHA-256 of the cookie's token, and the CSRF token of its forms.
            CREATE TABLE manager_session (
                token_hash bytea PRIMARY KEY,
                manager text NOT NULL REFERENCES manager ON DELETE CASCADE,
                csrf_token text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                last_seen timestamptz NOT NULL DEFAULT now()
            );
            -- Who changed what, when, before and after.
            CREATE TABLE audit (
                audit_id bigserial PRIMARY KEY,
                at timestamptz NOT NULL DEFAULT now(),
                who text NOT NULL,
                store_id text,
                action text NOT NULL,
                before text,
                after text
            );
            CREATE INDEX audit_store ON audit (store_id, at);
            """),
        (7, "when a ticket was scanned on the way out", """
            ALTER TABLE ticket ADD COLUMN left_at timestamptz;
            """),
        (8, "bookings issued at a totem, the wait a ticket was told, each totem's devices, notices once", """
            -- A booking's slot; the wait the customer was told at issue (the middle of its range).
            ALTER TABLE ticket ADD COLUMN slot_start timestamptz;
            ALTER TABLE ticket ADD COLUMN promised_wait_minutes double precision;
            CREATE INDEX ticket_slot ON ticket (store_id, slot_start) WHERE slot_start IS NOT NULL;
            -- Places of each slot every totem of the store may book itself, offline too.
            ALTER TABLE store ADD COLUMN totem_booking_places integer NOT NULL DEFAULT 0
                CHECK (totem_booking_places BETWEEN 0 AND 1000);
            -- The devices and the printer as the totem last reported them (JSON text).
            ALTER TABLE totem ADD COLUMN last_health text;
            -- A notice is queued once per booking and kind.
            CREATE UNIQUE INDEX notice_once ON notice (store_id, booking_number, slot_start, kind);
            """),
        (9, "the store's employees who may log in at its totems' PIN pads", """
            -- A staff number and a slow salted hash of the PIN (made by clup-hub): nothing personal.
            CREATE TABLE employee (
                store_id text NOT NULL REFERENCES store (store_id),
                staff_number text NOT NULL CHECK (staff_number ~ '^[0-9]{1,8}$'),
                kdf text NOT NULL,
                salt bytea NOT NULL CHECK (length(salt) = 16),
                pin_hash bytea NOT NULL CHECK (length(pin_hash) = 32),
                changed_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (store_id, staff_number)
            );
            """),
        (10, "the panel's login guesses counted per name typed, known or not, apart from the managers", """
            -- One row per name guessed at recently (a manager's or not, so that both are answered
            -- alike): the guesses checked since the last success, and the lock they led to.
            -- A guess is counted here, in its own transaction, before its password is checked.
            CREATE TABLE login_throttle (
                name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9._-]{1,31}$'),
                guesses integer NOT NULL DEFAULT 0 CHECK (guesses >= 0),
                locked_until timestamptz,
                last_guess timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX login_throttle_last_guess ON login_throttle (last_guess);
            ALTER TABLE manager DROP COLUMN failed_logins;
            ALTER TABLE manager DROP COLUMN locked_until;
            """),
        (11, "the highest seq each totem ever sent, so that a seq is stored once across days", """
            -- Up to here a seq may be held already (as an event of any day, or a dead letter);
            -- above it, nothing of the device is held, and a batch needs no lookup.
            ALTER TABLE device_cursor ADD COLUMN highest bigint NOT NULL DEFAULT 0;
            UPDATE device_cursor c SET highest = greatest(c.acknowledged,
                coalesce((SELECT max(seq) FROM event e WHERE e.store_id = c.store_id AND e.device_id = c.device_id), 0),
                coalesce((SELECT max(seq) FROM dead_letter d WHERE d.store_id = c.store_id AND d.device_id = c.device_id), 0));
            """),
        (12, "rollouts of totem software in stages, the totems each stage takes in, and each totem's last update", """
            -- A version of clup-totem going out to the fleet: first to named canary totems, then
            -- to a share of each store's totems stage by stage (shares, in %), then to all; each
            -- stage waits until all its totems run the version and stay healthy for
            -- healthy_seconds. At most one rollout is live (running or paused) at a time.
            CREATE TABLE rollout (
                rollout_id bigserial PRIMARY KEY,
                version text NOT NULL CHECK (version ~ '^[0-9][A-Za-z0-9.+~-]{0,63}$'),
                canaries text[] NOT NULL,
                shares integer[] NOT NULL,
                healthy_seconds integer NOT NULL CHECK (healthy_seconds BETWEEN 0 AND 604800),
                state text NOT NULL CHECK (state IN ('running', 'paused', 'aborted', 'done')),
                -- 0: the canaries; 1..n: shares[stage]; n + 1: every totem.
                stage integer NOT NULL DEFAULT 0 CHECK (stage >= 0),
                stage_started_at timestamptz NOT NULL,
                -- Since when every totem of the stage runs the version, heard from lately.
                healthy_since timestamptz,
                reason text,
                created_by text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                ended_at timestamptz
            );
            CREATE UNIQUE INDEX rollout_one_live ON rollout ((true)) WHERE state IN ('running', 'paused');
            -- The totems a rollout has taken in, and at which stage.
            CREATE TABLE rollout_target (
                rollout_id bigint NOT NULL REFERENCES rollout,
                device_id text NOT NULL REFERENCES totem,
                stage integer NOT NULL,
                added_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (rollout_id, device_id)
            );
            CREATE INDEX rollout_target_device ON rollout_target (device_id);
            -- What a totem last said of an update: the version, how it went, when.
            CREATE TABLE totem_update (
                device_id text PRIMARY KEY REFERENCES totem,
                version text NOT NULL,
                outcome text NOT NULL CHECK (outcome IN ('installed', 'rolled-back', 'failed')),
                detail text NOT NULL DEFAULT '',
                at timestamptz NOT NULL
            );
            """),
        (13, "people in and out per door and quarter of an hour, for the panel's hourly chart; how long the chain keeps events", """
            -- What passages and corrections add up to in each quarter of an hour (by the event's
            -- wall time, quarter = seconds since 1970 / 900), per door and business day: the
            -- panel's hours are read from here, never from event payloads, and stay when old
            -- days' events are retired. Quarters, not hours: a store's hours begin on the
            -- quarter of UTC its zone puts them on (India +05:30, Nepal +05:45).
            CREATE TABLE occupancy_quarter (
                store_id text NOT NULL,
                business_day date NOT NULL,
                door text NOT NULL,
                quarter bigint NOT NULL,
                entries bigint NOT NULL DEFAULT 0,
                exits bigint NOT NULL DEFAULT 0,
                corrections bigint NOT NULL DEFAULT 0,
                PRIMARY KEY (store_id, business_day, door, quarter)
            );
            INSERT INTO occupancy_quarter (store_id, business_day, door, quarter, entries, exits, corrections)
            SELECT store_id, business_day, coalesce(p -> 'passage' ->> 'door', p -> 'occupancyCorrected' ->> 'door', ''),
                   floor(extract(epoch FROM wall_time) / 900)::bigint,
                   count(*) FILTER (WHERE p -> 'passage' ->> 'direction' = 'in'),
                   count(*) FILTER (WHERE p -> 'passage' ->> 'direction' = 'out'),
                   coalesce(sum((p -> 'occupancyCorrected' ->> 'delta')::bigint), 0)
            FROM (SELECT store_id, business_day, wall_time, payload::jsonb AS p FROM event
                  WHERE type IN ('occupancy.passage', 'occupancy.corrected')) AS moves
            GROUP BY 1, 2, 3, 4;
            -- The chain's own choices, one row: how many days of events the hub keeps (older
            -- days' partitions are retired by the hub; their statistics stay in the projections).
            CREATE TABLE chain_setting (
                only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                event_days integer NOT NULL DEFAULT 400 CHECK (event_days BETWEEN 30 AND 3660)
            );
            INSERT INTO chain_setting DEFAULT VALUES;
            """),
        (14, "notices delivered to the chain's notification gateway as signed webhooks, retried, or kept as dead letters", """
            -- Each notice is sent until the gateway takes it (sent_at), retried with a growing
            -- pause (next_attempt_at, attempts, last_error), or given up on (dead_at) with the
            -- reason in last_error, for the panel and `clup-hub notices`.
            ALTER TABLE notice ADD COLUMN attempts integer NOT NULL DEFAULT 0;
            ALTER TABLE notice ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now();
            ALTER TABLE notice ADD COLUMN last_error text;
            ALTER TABLE notice ADD COLUMN dead_at timestamptz;
            CREATE INDEX notice_due ON notice (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL;
            """),
        (15, "places in a door's line taken from a phone, and the notice that calls them", """
            -- A place in the line of one door (the totem device_id), numbered for the door's
            -- letter in the remote lane (AR-004) on from the live ones of two days, its code
            -- signed with the store's booking key. The door's events say what became of it
            -- (table ticket); left_at is when its holder left from the phone.
            CREATE TABLE remote_ticket (
                store_id text NOT NULL REFERENCES store,
                business_day date NOT NULL,
                device_id text NOT NULL REFERENCES totem,
                seq integer NOT NULL CHECK (seq BETWEEN 1 AND 65535),
                number text NOT NULL,
                customer_ref text NOT NULL,
                joined_at timestamptz NOT NULL,
                code text NOT NULL,
                left_at timestamptz,
                PRIMARY KEY (store_id, business_day, device_id, seq)
            );
            CREATE INDEX remote_ticket_reference ON remote_ticket (store_id, customer_ref, business_day);
            CREATE INDEX remote_ticket_number ON remote_ticket (store_id, number, joined_at);
            ALTER TABLE notice DROP CONSTRAINT notice_kind_check;
            ALTER TABLE notice ADD CONSTRAINT notice_kind_check CHECK (kind IN ('cancelled', 'delayed', 'called'));
            """),
        (16, "stores on the map; the stores' rules for delay notices, major delays and reminders", """
            -- Where a store is (WGS 84 degrees), for the app's stores nearby; NULL: not on the map.
            ALTER TABLE store ADD COLUMN latitude double precision CHECK (latitude BETWEEN -90 AND 90);
            ALTER TABLE store ADD COLUMN longitude double precision CHECK (longitude BETWEEN -180 AND 180);
            ALTER TABLE store ADD CONSTRAINT store_located CHECK ((latitude IS NULL) = (longitude IS NULL));
            -- R10: a booking whose slot starts within delay_notice_minutes while the store is full
            -- hears that it may wait at the door. R11: once the store has been full for
            -- major_delay_minutes (NULL: never), such bookings are cancelled and told so.
            -- A booking made in the app hears a reminder reminder_minutes before its slot (0: none).
            ALTER TABLE store ADD COLUMN delay_notice_minutes integer NOT NULL DEFAULT 30 CHECK (delay_notice_minutes BETWEEN 0 AND 240);
            ALTER TABLE store ADD COLUMN major_delay_minutes integer CHECK (major_delay_minutes BETWEEN 1 AND 600);
            ALTER TABLE store ADD COLUMN reminder_minutes integer NOT NULL DEFAULT 60 CHECK (reminder_minutes BETWEEN 0 AND 1440);
            -- Since when the store is full without a break, as its doors' batches say; NULL: not full.
            ALTER TABLE store ADD COLUMN full_since timestamptz;
            ALTER TABLE notice DROP CONSTRAINT notice_kind_check;
            ALTER TABLE notice ADD CONSTRAINT notice_kind_check CHECK (kind IN ('cancelled', 'delayed', 'called', 'reminder'));
            CREATE INDEX booking_upcoming ON booking (slot_start) WHERE cancelled_at IS NULL;
            """),
        (17, "the instant a place was taken in the line, to the millisecond, on the hub's clock", """
            -- LineOrder: a printed ticket's place in the line (its totem's clock corrected by the
            -- offset its sync measured), or a phone's place's (the hub's own clock). NULL in the
            -- events of totems before it: issued_at stands for it.
            ALTER TABLE ticket ADD COLUMN taken_at timestamptz;
            """),
        (18, "the network each place taken on the website came from, as a digest keyed by the chain's own key", """
            -- RemoteLine's limits per network (an IPv4 address, an IPv6 /64): HMAC-SHA256 of the
            -- network with this key, 16 bytes, so the table names no address; cleared a day on.
            ALTER TABLE chain_setting ADD COLUMN address_key bytea NOT NULL
                DEFAULT decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex');
            ALTER TABLE remote_ticket ADD COLUMN client_net bytea CHECK (length(client_net) = 16);
            CREATE INDEX remote_ticket_client ON remote_ticket (store_id, client_net, joined_at) WHERE client_net IS NOT NULL;
            """),
        (19, "the app's requests sent with an Idempotency-Key, and their answers, kept a day", """
            CREATE TABLE app_request (
                idempotency_key text PRIMARY KEY CHECK (length(idempotency_key) BETWEEN 1 AND 255),
                -- SHA-256 of the method, the path and the body: the same key with another request is refused.
                fingerprint bytea NOT NULL CHECK (length(fingerprint) = 32),
                -- The answer, as the hub sent it; NULL only inside the transaction that makes it.
                answer bytea,
                made_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX app_request_made ON app_request (made_at);
            """),
        (20, "notices that no longer help are dropped; the website's visitors' push subscriptions", """
            -- A notice is pending until sent, dead (given up on) or dropped (a call whose place
            -- is over before it could leave, a visitor who asked to be told nothing).
            ALTER TABLE notice ADD COLUMN dropped_at timestamptz;
            DROP INDEX notice_due;
            CREATE INDEX notice_due ON notice (next_attempt_at) WHERE sent_at IS NULL AND dead_at IS NULL AND dropped_at IS NULL;
            -- A website visitor's browser, where their notices go by Web Push (RFC 8030, 8291, 8292).
            CREATE TABLE push_subscription (
                customer_ref text PRIMARY KEY CHECK (customer_ref LIKE 'web:%'),
                store_id text NOT NULL REFERENCES store,
                endpoint text NOT NULL CHECK (length(endpoint) <= 1024),
                p256dh bytea NOT NULL CHECK (length(p256dh) = 65),
                auth bytea NOT NULL CHECK (length(auth) = 16),
                language text NOT NULL CHECK (language ~ '^[a-z]{2}$'),
                made_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX push_subscription_made ON push_subscription (made_at);
            """),
        (21, "the language a place taken from a phone was taken in, for the door's words to its holder", """
            ALTER TABLE remote_ticket ADD COLUMN language text CHECK (language ~ '^[a-z]{2}$');
            """),
        (22, "each door's line on a version of its own, and which totems follow it apart from the store's settings", """
            -- Goes up at each join or leave at the door (`RemoteLine.lineChanged`).
            ALTER TABLE totem ADD COLUMN line_version bigint NOT NULL DEFAULT 0;
            -- Set when the totem first asks for its line (GET /v1/line): from then on its
            -- settings carry no places from phones, and a join at its store makes no new
            -- settings version for it.
            ALTER TABLE totem ADD COLUMN follows_line boolean NOT NULL DEFAULT false;
            """),
        (23, "the store's configuration on a version of its own, the one the doors that follow their lines wait on", """
            -- The settings version at the store's last change of configuration (settings,
            -- employees, bookings, keys, the release to install). A door that takes its part of
            -- the capacity from its line waits on it alone: the doors' parts, which move
            -- settings_version too, reach it on its line.
            ALTER TABLE store ADD COLUMN config_version bigint NOT NULL DEFAULT 1;
            UPDATE store SET config_version = settings_version;
            -- Whether the door said, when it last asked for its line, that it takes its part of
            -- the capacity from there (a clupd from before takes it from its settings).
            ALTER TABLE totem ADD COLUMN limit_on_line boolean NOT NULL DEFAULT false;
            """),
        (24, "release keys and the signed release manifests that vouch for the versions a rollout may name", """
            -- The public halves of the chain's release keys (Ed25519): the hub checks manifests
            -- against them. The private halves are never here: the release manager keeps them.
            CREATE TABLE release_key (
                key_id text PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{16}$'),
                key_line text NOT NULL CHECK (length(key_line) <= 200),
                added_at timestamptz NOT NULL DEFAULT now(),
                added_by text NOT NULL
            );
            -- One signed manifest per clup-totem version (the latest issued), as it was signed.
            CREATE TABLE release_manifest (
                version text PRIMARY KEY,
                envelope text NOT NULL CHECK (length(envelope) <= 65536),
                key_id text NOT NULL,
                issued timestamptz NOT NULL,
                expires timestamptz NOT NULL,
                support_ends timestamptz,
                added_at timestamptz NOT NULL DEFAULT now(),
                added_by text NOT NULL
            );
            """),
        (25, "an audit record says where it came from and how it ended", """
            -- Where: the panel and the client's address, the shell and its user, the hub itself,
            -- or a totem's report. Records from before are marked as such; new ones say it.
            ALTER TABLE audit ADD COLUMN source text NOT NULL DEFAULT 'not recorded (before 0.12)';
            ALTER TABLE audit ALTER COLUMN source DROP DEFAULT;
            -- "ok", or "refused: why" for what the hub turned down.
            ALTER TABLE audit ADD COLUMN result text NOT NULL DEFAULT 'ok';
            CREATE INDEX audit_at ON audit (at);
            """),
        (26, "a store's staff are alerted when its line passes what its manager set", """
            -- The estimated wait (minutes) and the line's length above which the store's staff
            -- are alerted (the hub's metrics, read by the shipped alert rules); 0: no alert.
            ALTER TABLE store ADD COLUMN alert_wait_minutes integer NOT NULL DEFAULT 0
                CHECK (alert_wait_minutes BETWEEN 0 AND 600);
            ALTER TABLE store ADD COLUMN alert_waiting integer NOT NULL DEFAULT 0
                CHECK (alert_waiting BETWEEN 0 AND 100000);
            """),
        (27, "a door's counting figures per day, and the chain's tolerance", """
            -- What each totem counted at its door that the count cannot vouch for, per business
            -- day, as it last reported (CountingTally): entries with no release, releases
            -- nobody used, exits while released for an entry. With occupancy's in - out +-
            -- corrections, a day's counting accuracy.
            CREATE TABLE door_counting (
                store_id text NOT NULL,
                business_day date NOT NULL,
                door text NOT NULL,
                device_id text NOT NULL,
                without_release integer NOT NULL CHECK (without_release BETWEEN 0 AND 1000000),
                releases_unused integer NOT NULL CHECK (releases_unused BETWEEN 0 AND 1000000),
                wrong_way integer NOT NULL CHECK (wrong_way BETWEEN 0 AND 1000000),
                reported_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (store_id, business_day, door, device_id)
            );
            -- People left inside at closing (either way) past which a store-day is flagged.
            ALTER TABLE chain_setting ADD COLUMN counting_tolerance integer NOT NULL DEFAULT 2
                CHECK (counting_tolerance BETWEEN 0 AND 1000);
            """),
        (28, "a look at a totem's screen from the panel", """
            -- Asked at the panel, answered by the totem with one frame; a frame is kept
            -- 10 minutes at most (RemoteScreens.kept), the request with it.
            CREATE TABLE screen_request (
                id text PRIMARY KEY,
                store_id text NOT NULL,
                device_id text NOT NULL,
                asked_by text NOT NULL,
                asked_at timestamptz NOT NULL DEFAULT now(),
                frame bytea CHECK (octet_length(frame) <= 1048576),
                frame_taken_at timestamptz,
                frame_came_at timestamptz
            );
            CREATE INDEX screen_request_device ON screen_request (device_id, asked_at);
            """),
        (29, "one row per ticket: a ticket carried into a later business day is kept under the last day it was in play", """
            -- The day a ticket was issued, where it was carried into a later one (NULL: its
            -- business_day). The totem keeps such a ticket under the day it was issued and
            -- names the day it was carried into; the hub keeps it under that day, which a
            -- door's events of it name, with the day it was issued.
            ALTER TABLE ticket ADD COLUMN issued_day date;
            -- Until now a ticket carried over was copied to each day it was carried into and
            -- its older copies stayed behind, never updated again. Its last copy stays, with
            -- what only an older one held (a door that took it in, when it left) and the day
            -- of the first; the older ones go.
            WITH carried AS (
                SELECT store_id, number, issued_at, min(business_day) AS first_day, max(business_day) AS last_day,
                       max(admitted_by) AS admitted_by, max(admitted_at) AS admitted_at, max(entered_at) AS entered_at,
                       max(left_at) AS left_at, max(state) FILTER (WHERE state IN ('admitted', 'entered')) AS went_in
                FROM ticket GROUP BY store_id, number, issued_at HAVING count(*) > 1)
            UPDATE ticket t SET issued_day = c.first_day, admitted_by = coalesce(t.admitted_by, c.admitted_by),
                state = CASE WHEN t.state IN ('admitted', 'entered') OR c.went_in IS NULL THEN t.state ELSE c.went_in END,
                admitted_at = coalesce(t.admitted_at, c.admitted_at), entered_at = coalesce(t.entered_at, c.entered_at),
                left_at = coalesce(t.left_at, c.left_at)
            FROM carried c
            WHERE t.store_id = c.store_id AND t.number = c.number AND t.issued_at = c.issued_at AND t.business_day = c.last_day;
            WITH carried AS (
                SELECT store_id, number, issued_at, max(business_day) AS last_day
                FROM ticket GROUP BY store_id, number, issued_at HAVING count(*) > 1)
            DELETE FROM ticket t USING carried c
            WHERE t.store_id = c.store_id AND t.number = c.number AND t.issued_at = c.issued_at AND t.business_day < c.last_day;
            -- The day under which the hub keeps ticket `n` that a door's event of business day
            -- `d` names: `d` itself; or the later day the ticket was carried into since (the
            -- event came late, from another door); or the day before, where the ticket is still
            -- in play, not yet carried into `d` (its door's day.opened has not come yet);
            -- `d` if there is no such row.
            CREATE FUNCTION ticket_day(s text, d date, n text) RETURNS date LANGUAGE sql STABLE AS $$
                SELECT coalesce(
                    (SELECT d WHERE EXISTS (SELECT 1 FROM ticket WHERE store_id = s AND business_day = d AND number = n)),
                    (SELECT min(business_day) FROM ticket WHERE store_id = s AND business_day > d AND number = n AND issued_day <= d),
                    (SELECT d - 1 WHERE EXISTS (SELECT 1 FROM ticket WHERE store_id = s AND business_day = d - 1 AND number = n
                                                AND state IN ('printing', 'waiting', 'called', 'admitted'))),
                    d)
            $$;
            """),
    ]

    /// The statements of a migration: split where a line ends with `;` (a function's body
    /// holds one SQL expression, with no `;` of its own).
    static func statements(of sql: String) -> [String] {
        sql.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }.filter { !$0.isEmpty }
    }
}
