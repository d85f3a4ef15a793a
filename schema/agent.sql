-- agent.sql -- the agent's SQLite schema, as numbered migrations.
-- Each block starts with a line "-- migration N"; the store applies, in one
-- transaction each, every block whose N is above PRAGMA user_version and then
-- sets user_version to N. Never edit a released block: add a new one.

-- migration 1
CREATE TABLE changes (
  id INTEGER PRIMARY KEY,
  at REAL NOT NULL,                 -- epoch seconds
  device TEXT NOT NULL,             -- "" for sysctls
  name TEXT NOT NULL,               -- parameter or sysctl name
  previous TEXT,
  requested TEXT,
  applied TEXT,
  outcome TEXT NOT NULL,            -- ok | adjusted | rejected | rolled_back | restored | error
  origin TEXT NOT NULL,             -- "request 12 PUT /api/v1/...", "session 3 expired", ...
  message TEXT
);
CREATE INDEX changes_device_at ON changes(device, at);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  device TEXT NOT NULL,
  created_at REAL NOT NULL,
  ttl_s INTEGER NOT NULL,
  expires_at REAL NOT NULL,
  state TEXT NOT NULL,              -- open | closed | restored
  ended_at REAL,
  end_reason TEXT,                  -- closed | closed_no_restore | expired | agent_restart
  restore_outcome TEXT,             -- ok | failed: ...
  snapshot TEXT NOT NULL            -- JSON object {name: value} of every writable parameter
);
CREATE INDEX sessions_state ON sessions(state);
