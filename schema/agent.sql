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
  end_reason TEXT,                  -- closed | expired | agent_restart | agent_shutdown | duplicate
  restore_outcome TEXT,             -- ok | failed: ...
  snapshot TEXT NOT NULL            -- JSON object {name: value} of every writable parameter
);
CREATE INDEX sessions_state ON sessions(state);

-- migration 2
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  state TEXT NOT NULL,              -- queued | running | succeeded | failed | cancelled | interrupted
  device TEXT NOT NULL,
  engine TEXT NOT NULL,
  spec TEXT NOT NULL,               -- the accepted request body, JSON
  labels TEXT NOT NULL,             -- JSON object of strings
  loops INTEGER NOT NULL,
  loops_done INTEGER NOT NULL DEFAULT 0,
  params TEXT,                      -- JSON: every parameter of the device, read just before loop 1
  restore TEXT,                     -- JSON: writable snapshot taken before the job's params were applied
  pgid INTEGER,                     -- process group of the running engine
  error_code TEXT,
  error_message TEXT,
  created_at REAL NOT NULL,
  started_at REAL,
  finished_at REAL
);
CREATE INDEX jobs_state ON jobs(state, id);
CREATE INDEX jobs_device_finished ON jobs(device, finished_at);
CREATE INDEX jobs_finished ON jobs(finished_at);

CREATE TABLE passes (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  loop INTEGER NOT NULL,
  started_at REAL NOT NULL,
  finished_at REAL NOT NULL,
  metrics TEXT NOT NULL,            -- JSON object {"write.bw_mib": 1283.7, ...}
  raw BLOB,                         -- the engine's output as written (fio's JSON)
  PRIMARY KEY (job_id, loop)
);

-- Filters for the results history: one row per label and per parameter.
CREATE TABLE job_labels (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (job_id, key)
);
CREATE INDEX job_labels_kv ON job_labels(key, value);
CREATE TABLE job_params (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (job_id, name)
);
CREATE INDEX job_params_nv ON job_params(name, value);

-- migration 3
-- One open session per device, also when opens race (the store checks and inserts in one
-- BEGIN IMMEDIATE; this index makes a second open row impossible). Devices that a race
-- left with two open sessions keep the oldest, which holds the values from before both;
-- the newer ones are closed without a restore.
UPDATE sessions SET state = 'closed', ended_at = CAST(strftime('%s', 'now') AS REAL),
  end_reason = 'duplicate',
  restore_outcome = 'not restored: an older session on the device was open at the same time'
  WHERE state = 'open' AND id NOT IN (SELECT MIN(id) FROM sessions WHERE state = 'open'
                                      GROUP BY device);
CREATE UNIQUE INDEX sessions_one_open ON sessions(device) WHERE state = 'open';

-- migration 4
-- Restore precedence: a session's restore cancels the restore point of a job that ran inside
-- it (restore NULL), and a job whose device a restore changed mid-run says so here.
ALTER TABLE jobs ADD COLUMN params_changed TEXT;

-- migration 5
-- A job with a filesystem: what mkfs and mount made (the command, the mount's and the
-- filesystem's options as mountinfo shows them, xfs_info / tune2fs -l figures), JSON.
ALTER TABLE jobs ADD COLUMN filesystem TEXT;

-- migration 6
-- Crash-consistent PATCH: an all-or-nothing apply (PATCH, PUT) is recorded before its first
-- write with the device's writable values as they were, and its audit rows name it; the row
-- goes once the apply has ended (done, or rolled back). A start after kill -9 finds the
-- applies still there: one whose writes were all made is recorded as done, any other is
-- rolled back to its snapshot (docs/api.md, "What the agent guarantees"). Rows closed that
-- way at start have outcome 'ok' (the write had been made) or 'interrupted' (its apply was
-- rolled back).
CREATE TABLE applies (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: audit rows keep naming their apply
  at REAL NOT NULL,
  device TEXT NOT NULL,
  origin TEXT NOT NULL,
  n INTEGER NOT NULL,               -- how many writes the apply makes
  snapshot TEXT NOT NULL            -- JSON object {name: value} of every writable parameter
);
ALTER TABLE changes ADD COLUMN apply_id INTEGER;
CREATE INDEX changes_apply ON changes(apply_id) WHERE apply_id IS NOT NULL;
CREATE INDEX changes_pending ON changes(outcome) WHERE outcome = 'pending';

-- migration 7
-- Issue 19: what the job's device and host were, read with the parameter snapshot before
-- loop 1 (JSON: {"device": {vendor, model, firmware, ...}, "host": {kernel, machine, hostname}}).
ALTER TABLE jobs ADD COLUMN identity TEXT;

-- migration 8
-- Profiles the agent keeps (agent/state/keeper.c): a match (device names or patterns, identity
-- fields), the values to hold, and whether drift is put back. profile_before keeps, per
-- device, what the profile's parameters were before the profile first changed them, for
-- DELETE ?restore=true.
CREATE TABLE profiles (
  name TEXT PRIMARY KEY,
  match TEXT NOT NULL,              -- JSON {"devices":["sda","nvme*n1"], "model":[...], ...}
  params TEXT NOT NULL,             -- JSON {name: value}, as requested
  enforce INTEGER NOT NULL,         -- 1: drift is put back; 0: only reported
  created_at REAL NOT NULL,
  updated_at REAL NOT NULL
);
CREATE TABLE profile_before (
  profile TEXT NOT NULL REFERENCES profiles(name) ON DELETE CASCADE,
  device TEXT NOT NULL,
  snapshot TEXT NOT NULL,           -- JSON {name: "value"}: the values before the profile
  PRIMARY KEY (profile, device)
);

-- migration 9
-- A job with params records what applying them did, per item as a PATCH answers it ({name:
-- {requested, previous, value, mapped_to, adjusted}}, JSON): the controller reads a run's
-- read-back from its job, so a run costs one request per node, not a PATCH and a POST.
ALTER TABLE jobs ADD COLUMN applied TEXT;

-- migration 10
-- Jobs that start by the clock (a job's "start_at"): when its first pass began (after the job
-- held until its moment, or at once when the moment had passed), and how long it held, so an
-- answer says how late it started and how long it waited; NULL: not begun (yet).
ALTER TABLE jobs ADD COLUMN begun_at REAL;
ALTER TABLE jobs ADD COLUMN held_s REAL;

-- migration 11
-- What a DELETE /profiles/X?restore=true could not put back at once because a
-- session or job owned the device: put back by the profile keeper once the owner lets go
-- (only the parameters no other kept profile holds there by then), then removed.
CREATE TABLE profile_restores_owed (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  device TEXT NOT NULL,
  profile TEXT NOT NULL,            -- the deleted profile's name
  origin TEXT NOT NULL,             -- who deleted it ("request 12 DELETE /api/v1/profiles/db")
  snapshot TEXT NOT NULL,           -- JSON {name: "value"}: the values to put back
  at REAL NOT NULL
);

-- migration 12
-- Issue 29: a job with workloads (fio's "workloads", the stonewalled sections of each pass)
-- records each workload's metrics of every pass under its name, in the job's order (idx); the
-- pass's own metrics (passes.metrics) are its first workload's. GET /results?workload=NAME
-- reads the name.
CREATE TABLE pass_workloads (
  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  loop INTEGER NOT NULL,
  idx INTEGER NOT NULL,             -- 0-based, the job's workload order
  name TEXT NOT NULL,
  metrics TEXT NOT NULL,            -- JSON object {"read.bw_mib": 512.3, ...}
  PRIMARY KEY (job_id, loop, idx)
);
CREATE INDEX pass_workloads_name ON pass_workloads(name, job_id);
