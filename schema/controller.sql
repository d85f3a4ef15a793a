-- controller.sql -- fleettune-ctl's SQLite schema (sweep history), as numbered migrations.
-- Each block starts with a line "-- migration N"; ctlstore applies, in one
-- transaction each, every block whose N is above PRAGMA user_version and then
-- sets user_version to N. Never edit a released block: add a new one.

-- migration 1
CREATE TABLE sweeps (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  plan_json TEXT NOT NULL,          -- the plan, tokens removed
  strategy TEXT NOT NULL,           -- grid | sequential
  metric TEXT NOT NULL,
  status TEXT NOT NULL,             -- running | completed | aborted | interrupted | failed
  created_at REAL NOT NULL,         -- epoch seconds
  finished_at REAL,
  dropped_json TEXT NOT NULL DEFAULT '[]', -- node names dropped mid-sweep
  best_point INTEGER,               -- points.idx of the best configuration, NULL: none
  best_line TEXT                    -- the "best: ..." summary line
);
CREATE INDEX sweeps_created ON sweeps(created_at);

CREATE TABLE points (
  sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,             -- run order, 0-based
  role TEXT NOT NULL,               -- baseline | candidate | final
  axis INTEGER,                     -- sequential axis index
  ref INTEGER,                      -- idx of the point compared against
  config_json TEXT NOT NULL,        -- requested parameter values
  delta_pct REAL,                   -- fleet Δ vs ref, with its 95 % Welch CI
  ci_low_pct REAL,
  ci_high_pct REAL,
  spread_pct REAL,
  verdict TEXT,                     -- significant gain | ... | nodes disagree
  PRIMARY KEY (sweep_id, idx)
);

CREATE TABLE point_nodes (
  sweep_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  node_idx INTEGER NOT NULL,        -- index in the plan's nodes
  node TEXT NOT NULL,
  state TEXT NOT NULL,              -- pending | ok | failed | cancelled | dropped
  applied_json TEXT NOT NULL,       -- values read back after the PATCH
  adjusted_mask INTEGER NOT NULL DEFAULT 0,
  job_id INTEGER,                   -- the agent's job id
  job_runtime_s REAL,
  error TEXT,
  mean REAL,
  stdev REAL,
  delta_pct REAL,
  ci_low_pct REAL,
  ci_high_pct REAL,
  verdict TEXT,                     -- gain | loss | none | unclear
  PRIMARY KEY (sweep_id, idx, node_idx),
  FOREIGN KEY (sweep_id, idx) REFERENCES points(sweep_id, idx) ON DELETE CASCADE
);

CREATE TABLE passes (
  sweep_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  node_idx INTEGER NOT NULL,
  loop INTEGER NOT NULL,            -- 1-based
  value REAL NOT NULL,              -- the sweep's metric
  PRIMARY KEY (sweep_id, idx, node_idx, loop),
  FOREIGN KEY (sweep_id, idx, node_idx) REFERENCES point_nodes(sweep_id, idx, node_idx)
    ON DELETE CASCADE
);

-- migration 2
-- What a sweep found, as data; the controller words it (sweeps.best_line holds the worded
-- line of sweeps stored before this migration and is no longer written).
ALTER TABLE sweeps ADD COLUMN outcome TEXT;         -- best | baseline | baseline_failed | no_figures
ALTER TABLE sweeps ADD COLUMN best_config_json TEXT; -- the best point's parameters
ALTER TABLE sweeps ADD COLUMN best_delta_pct REAL;   -- its fleet Δ vs its reference
ALTER TABLE sweeps ADD COLUMN best_verdict TEXT;     -- its row verdict code (gain)
-- Loops asked of every node, summed over every run of the point.
ALTER TABLE points ADD COLUMN loops INTEGER;
-- Verdicts are stored as codes from now on: points.verdict gain | loss | none |
-- inconclusive | disagree (older rows hold the worded verdict; loading recomputes them).

-- migration 3
-- Fleet-effect verdicts (controller/stats/effect.c). points.verdict holds gain | loss | equivalent |
-- inconclusive | heterogeneous and point_nodes.verdict gain | loss | equivalent | inconclusive
-- from now on; points.delta_pct and its interval are the random-effects fleet effect and
-- point_nodes' the node's ratio of means (95 %). Older rows keep the older codes; loading
-- recomputes every verdict from the passes.
-- The reference's loops when the point last ran: the reference passes its comparison counts
-- (adaptive loops); NULL for rows stored before, which count them all.
ALTER TABLE points ADD COLUMN ref_loops INTEGER;

-- migration 4
-- The adaptive strategy's race decisions, one row per raced point (the final confirmation
-- and other strategies' points have none): the decision is history, kept as it was made.
CREATE TABLE point_races (
  sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  state TEXT NOT NULL,              -- running | dropped | won | tied | open | tentative
  why TEXT,                         -- worse | equivalent | failed | last | all_equivalent |
                                    -- cap | budget | not_better
  round INTEGER NOT NULL,           -- decided after this round (1: after job.loops.min)
  loops INTEGER NOT NULL,           -- the point's loops then
  vs INTEGER,                       -- the point it was compared with
  delta_pct REAL,                   -- Δ against vs, as measured
  low_pct REAL,                     -- the interval the decision used
  high_pct REAL,
  PRIMARY KEY (sweep_id, idx)
);

-- migration 5
-- Who runs a sweep and when it last saved a point: a `running` sweep whose controller is gone
-- (its pid on this host, or no saved point for an hour from another host) is shown abandoned.
ALTER TABLE sweeps ADD COLUMN owner_pid INTEGER;
ALTER TABLE sweeps ADD COLUMN owner_host TEXT;
ALTER TABLE sweeps ADD COLUMN saved_at REAL;       -- epoch seconds of the last saved point

-- migration 6
-- Issue 19: what each node's device and host were at pre-flight (GET /api/v1/devices on the
-- agent: the identity fields of common/protocol.h), which cohort_by groups the nodes by.
CREATE TABLE node_identity (
  sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  node_idx INTEGER NOT NULL,        -- the plan's node index
  field TEXT NOT NULL,              -- vendor | model | firmware | ... | kernel | machine | hostname
  value TEXT NOT NULL,              -- as the agent reported it (booleans true/false)
  PRIMARY KEY (sweep_id, node_idx, field)
);
-- The configuration a node ran when it was not its point's (the strategies carry each
-- cohort's winner forward for that cohort's nodes); NULL: the point's config_json.
ALTER TABLE point_nodes ADD COLUMN config_json TEXT;

-- migration 7
-- The run order (a sweep runs its points in interleaved rounds): each pass's round (1-based,
-- counted over the sweep) and when it started (epoch seconds, the agent's clock). NULL for
-- rows stored before: such sweeps are judged as independent samples, as they were. The seed
-- of the order inside each round (a decimal 64-bit integer) and the rounds begun.
ALTER TABLE passes ADD COLUMN round INTEGER;
ALTER TABLE passes ADD COLUMN started_at REAL;
ALTER TABLE sweeps ADD COLUMN order_seed TEXT;
ALTER TABLE sweeps ADD COLUMN rounds INTEGER;
-- Warm-up passes (plan job.warmup_loops): run and stored, shown, never judged.
CREATE TABLE warmup_passes (
  sweep_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  node_idx INTEGER NOT NULL,
  n INTEGER NOT NULL,               -- 1-based, in run order
  value REAL NOT NULL,
  round INTEGER,
  started_at REAL,
  PRIMARY KEY (sweep_id, idx, node_idx, n),
  FOREIGN KEY (sweep_id, idx, node_idx) REFERENCES point_nodes(sweep_id, idx, node_idx)
    ON DELETE CASCADE
);

-- migration 8
-- Staged rollouts (controller/run/rollrun.c): a profile put on the plan's nodes wave by wave, each
-- wave checked. Every node's move is saved before the request that makes it, so a rollout whose
-- controller was killed can be resumed or reverted from here.
CREATE TABLE rollouts (
  id INTEGER PRIMARY KEY,
  created_at REAL NOT NULL,
  finished_at REAL,
  plan_name TEXT NOT NULL,
  plan_json TEXT NOT NULL,          -- the plan, tokens removed
  plan_dir TEXT NOT NULL,           -- its token_file paths are relative to this
  profile TEXT NOT NULL,            -- the agents' profile name
  params_json TEXT NOT NULL,        -- the new values {name: value}
  enforce INTEGER NOT NULL,
  sweep_id INTEGER,                 -- --best ID (NULL with --params)
  promised_gain INTEGER NOT NULL,   -- the sweep's best was a significant gain
  promised_pct REAL,
  canary INTEGER NOT NULL,
  waves TEXT NOT NULL,              -- --waves as given
  max_failures INTEGER NOT NULL,
  check_mode TEXT NOT NULL,         -- none | readback | measure
  status TEXT NOT NULL,             -- running | completed | stopped | interrupted | reverted | failed
  reason TEXT,
  owner_pid INTEGER,
  owner_host TEXT,
  saved_at REAL                     -- epoch seconds of its last saved move
);
CREATE TABLE rollout_nodes (
  rollout_id INTEGER NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,             -- the plan's node index
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  device TEXT NOT NULL,
  wave INTEGER NOT NULL,            -- 0: the canary
  state TEXT NOT NULL,              -- old | applying | new | failed | reverting | reverted
  old_profile TEXT,                 -- the agent's profile of that name before, NULL: none
  old_params TEXT,                  -- its values {name: value}
  old_values TEXT,                  -- {name: value} of the device before
  error TEXT,
  session_id INTEGER,               -- a measurement's tuning session open on it, and its job
  job_id INTEGER,                   -- (a killed controller leaves them: resume and revert
                                    -- cancel the job and close the session)
  updated_at REAL,
  PRIMARY KEY (rollout_id, idx)
);
CREATE TABLE rollout_waves (
  rollout_id INTEGER NOT NULL REFERENCES rollouts(id) ON DELETE CASCADE,
  wave INTEGER NOT NULL,
  nodes INTEGER NOT NULL,
  started_at REAL,
  finished_at REAL,
  failures INTEGER NOT NULL DEFAULT 0,
  check_outcome TEXT,               -- passed | failed | skipped
  check_detail TEXT,
  PRIMARY KEY (rollout_id, wave)
);

-- migration 9
-- What each sweep decided (controller/model/decision.h), computed once by the
-- analysis and shown by every rendering: one row for the fleet (cohort -1) and one per cohort
-- when the sweep has two or more. The best_* columns of sweeps hold, from now on, the
-- confirmed decision only (NULL otherwise).
CREATE TABLE sweep_decisions (
  sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
  cohort INTEGER NOT NULL,          -- -1: the fleet; else the cohort's index
  state TEXT NOT NULL,              -- confirmed | unconfirmed | none
  basis TEXT NOT NULL,              -- final | grid_row | rows | none: which comparison decided
  why TEXT NOT NULL,                -- gain | not_confirmed | no_final | no_gain | baseline_failed
                                    -- | no_figures | not_judged
  config_json TEXT,                 -- confirmed: what to apply; unconfirmed: the suggestion
  point INTEGER,                    -- the deciding comparison's point and its reference
  ref INTEGER,
  verdict TEXT,                     -- its decision code
  delta_pct REAL,                   -- its Δ and the interval its decision used, with the
  low_pct REAL,                     -- interval's level (95, or 100 (1 - 5 %/K) at a look)
  high_pct REAL,
  level_pct REAL,
  nodes_used INTEGER NOT NULL DEFAULT 0,
  nodes_gain INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sweep_id, cohort)
);
-- The rows that suggested a decision's configuration (each axis' kept row), in axis order.
CREATE TABLE decision_steps (
  sweep_id INTEGER NOT NULL,
  cohort INTEGER NOT NULL,
  n INTEGER NOT NULL,               -- 0-based, in axis order
  point INTEGER NOT NULL,
  axis INTEGER,
  verdict TEXT,
  delta_pct REAL,
  low_pct REAL,
  high_pct REAL,
  level_pct REAL,
  PRIMARY KEY (sweep_id, cohort, n),
  FOREIGN KEY (sweep_id, cohort) REFERENCES sweep_decisions(sweep_id, cohort) ON DELETE CASCADE
);

-- migration 10
-- The start time of the controller that runs a rollout (/proc/PID/stat field 22, clock ticks
-- after boot), beside its pid: a pid reused by another process is not the rollout's controller.
ALTER TABLE rollouts ADD COLUMN owner_start INTEGER;
-- A rollout that switches the scheduler: what the switch resets (nr_requests, iosched.*) as
-- the node's device had it before, JSON {name: value}; its revert writes it back.
ALTER TABLE rollout_nodes ADD COLUMN reset_values TEXT;
-- The mkfs command a node's agent ran for the point's job (the job's filesystem.mkfs): what
-- export writes, since the agent turns the plan's options into what mkfs takes.
ALTER TABLE point_nodes ADD COLUMN mkfs TEXT;

-- migration 11
-- A suite's pass (plan workloads, matrix or suite): every series of the pass (each workload's
-- own metric, then each guardrail's metric on each workload it names, in the plan's order:
-- plan_series_build), as doubles in the host's byte order; NULL for a plain sweep's pass.
-- value stays the lead workload's figure.
ALTER TABLE passes ADD COLUMN series BLOB;
