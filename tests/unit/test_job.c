/* test_job.c -- the job queue against a temp sysfs tree and the fake fio script: success,
 * params applied and restored, failure, cancel, refused specs, checks without queueing, an
 * unrecordable restore point, queued jobs taken up after a restart, crash recovery, and the
 * job version long-polls wait on, with the watcher told of each change, the containment
 * record kept in the temp state directory while a job runs, and a queue started on its own
 * (no agent) whose every recorded time comes from the clock the test gives it. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agenttest.h"
#include "db.h"
#include "timeutil.h"
#include "wire/wire.h"

static int setup(void **state)
{
	*state = agent_fx_new();
	return 0;
}

static int teardown(void **state)
{
	agent_fx_free(*state);
	return 0;
}

/* Decode body_json as the API does; 0 or the decoder's error. Caller releases spec. */
static int decode(const char *body_json, struct job_spec *spec, struct err *e)
{
	json_t *body = json_loads(body_json, 0, NULL);
	int rc;

	assert_non_null(body);
	err_clear(e);
	rc = wire_job_spec_from_json(body, spec, e);
	json_decref(body);
	return rc;
}

/* Decode and submit; the first error is the answer, as for a POST. */
static int64_t submit(struct agent_fx *f, const char *body_json, int want_rc, struct err *e)
{
	struct job_spec spec;
	int64_t id = 0;
	int rc;

	rc = decode(body_json, &spec, e);
	if (rc == 0)
		rc = job_submit(f->a.jobs, &spec, &id, e);
	if (rc != want_rc)
		fail_msg("%s: rc %d (%s), want %d", body_json, rc, e->msg, want_rc);
	job_spec_release(&spec);
	return id;
}

/* Poll q until job id is in state (or 10 s pass). */
static void queue_wait(struct jobq *q, int64_t id, const char *state, struct job_rec *out)
{
	queue_wait_state(q, id, state, 10, out);
}

/* Poll until the fixture's job id reaches state (or 10 s pass). */
static void wait_state(struct agent_fx *f, int64_t id, const char *state, struct job_rec *out)
{
	queue_wait(f->a.jobs, id, state, out);
}

/* Poll until the job's containment record in the state directory exists (or is gone), or 10 s
 * pass: the agent's state dir is the fixture's temp tree, so a restart could find the job. */
static void wait_record(struct agent_fx *f, int64_t id, bool present)
{
	char path[600];
	int i;

	snprintf(path, sizeof(path), "%s/contain/job-%lld", f->root, (long long)id);
	for (i = 0; i < 200; i++) {
		if ((access(path, F_OK) == 0) == present)
			return;
		usleep(50 * 1000);
	}
	fail_msg("containment record %s never %s", path, present ? "appeared" : "went away");
}

#define FIO_OK "\"fio\":{\"rw\":\"randwrite\",\"bs\":\"4M\",\"runtime_s\":1,\"time_based\":true}"

static void test_job_succeeds(void **state)
{
	struct agent_fx *f = *state;
	struct session_rec srec;
	struct pass_rec *passes;
	struct job_rec j;
	struct err e;
	int64_t id;
	int n, i;

	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":2,"
	            "\"params\":{\"nr_requests\":128},\"labels\":{\"strip_size\":\"256k\"}}",
	            0, &e);
	assert_true(id > 0);
	wait_state(f, id, "running", &j);
	store_job_rec_release(&j);
	wait_state(f, id, "succeeded", &j);
	assert_int_equal(j.loops_done, 2);
	assert_true(j.progress == 1.0);
	assert_true(j.has_params);
	for (i = 0; i < j.n_params && strcmp(j.params[i].name, "nr_requests"); i++)
		;
	assert_true(i < j.n_params);
	assert_string_equal(j.params[i].value, "128");
	assert_true(j.params[i].number);
	/* What applying its params did, as a PATCH answers it: the controller's read-back. */
	assert_non_null(j.applied);
	assert_string_equal(j.applied,
	                    "{\"nr_requests\":{\"previous\":64,\"requested\":128,\"value\":128}}");
	assert_int_equal(j.spec.n_labels, 1);
	assert_string_equal(j.spec.labels[0].key, "strip_size");
	assert_ptr_equal(j.spec.engine, &fio_engine);
	assert_false(j.has_error);
	store_job_rec_release(&j);
	/* restored after the last loop */
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
	assert_int_equal(job_passes(f->a.jobs, id, &passes, &n, &e), 0);
	assert_int_equal(n, 2);
	/* the fixture's write bandwidth, in MiB/s, and no read metrics */
	assert_non_null(metrics_get(&passes[0].metrics, "write.bw_mib"));
	assert_null(metrics_get(&passes[0].metrics, "read.bw_mib"));
	free(passes);

	/* A legacy scheduler name is mapped (not adjusted); a job without params records none. */
	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":1,"
	            "\"params\":{\"scheduler\":\"deadline\"}}",
	            0, &e);
	assert_true(id > 0);
	wait_state(f, id, "succeeded", &j);
	assert_non_null(j.applied);
	assert_non_null(strstr(j.applied, "\"mapped_to\":\"mq-deadline\""));
	assert_non_null(strstr(j.applied, "\"value\":\"mq-deadline\""));
	assert_null(strstr(j.applied, "adjusted"));
	store_job_rec_release(&j);
	id = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":1}", 0, &e);
	assert_true(id > 0);
	wait_state(f, id, "succeeded", &j);
	assert_null(j.applied);
	store_job_rec_release(&j);
	/* params_restore false inside a session: applied and left set, as a PATCH leaves them,
	 * and the spec says so; the session puts them back. */
	assert_int_equal(session_open(&f->a.sessions, "loop0", 60, time_now_s(), &srec, &e), 0);
	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":1,"
	            "\"params\":{\"nr_requests\":32},\"params_restore\":false}",
	            0, &e);
	assert_true(id > 0);
	wait_state(f, id, "succeeded", &j);
	assert_true(j.spec.params_keep);
	assert_non_null(strstr(j.applied, "\"value\":32"));
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "32");
	assert_int_equal(
	        session_end(&f->a.sessions, srec.id, true, "closed", time_now_s(), &srec, &e), 0);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
}

static void test_job_fails_and_restores(void **state)
{
	struct agent_fx *f = *state;
	struct job_rec j;
	struct err e;
	int64_t id;

	setenv("FAKE_FIO_FAIL", "1", 1);
	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":3,"
	            "\"params\":{\"nr_requests\":256}}",
	            0, &e);
	wait_state(f, id, "failed", &j);
	assert_true(j.has_error);
	assert_string_equal(j.error_code, "engine_failed");
	assert_int_equal(j.loops_done, 0);
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
	unsetenv("FAKE_FIO_FAIL");
}

static void test_cancel(void **state)
{
	struct agent_fx *f = *state;
	struct job_rec j;
	struct err e;
	int64_t id, queued;

	setenv("FAKE_FIO_SLEEP_S", "30", 1);
	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":2,"
	            "\"params\":{\"nr_requests\":32}}",
	            0, &e);
	queued = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	wait_state(f, id, "running", &j);
	store_job_rec_release(&j);
	wait_record(f, id, true);
	usleep(300 * 1000);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "32");
	/* a queued job is dropped without running */
	assert_int_equal(job_cancel(f->a.jobs, queued, &e), 0);
	wait_state(f, queued, "cancelled", &j);
	store_job_rec_release(&j);
	/* the running one is stopped, its params restored */
	assert_int_equal(job_cancel(f->a.jobs, id, &e), 0);
	wait_state(f, id, "cancelled", &j);
	assert_int_equal(j.loops_done, 0);
	assert_string_equal(j.error_code, "cancelled");
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
	wait_record(f, id, false);
	assert_int_equal(job_cancel(f->a.jobs, id, &e), -EBUSY);
	assert_int_equal(e.code, ERR_CONFLICT);
	assert_int_equal(job_cancel(f->a.jobs, queued, &e), -EBUSY);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
}

static void test_refused_specs(void **state)
{
	struct agent_fx *f = *state;
	struct err e;

	tu_fake_device(f->root, "vda", 0);
	submit(f, "{\"engine\":\"fio\"," FIO_OK "}", -EINVAL, &e);
	assert_non_null(strstr(e.msg, "device"));
	submit(f, "{\"device\":\"sdq\",\"engine\":\"fio\"," FIO_OK "}", -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"nope\"}", -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"iodepth\":0}}", -EINVAL, &e);
	assert_non_null(strstr(e.msg, "fio.iodepth"));
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":0}", -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"labels\":{\"a b\":\"x\"}}",
	       -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"labels\":{\"k\":7}}",
	       -EINVAL, &e);
	/* Label values are plain text: no control character, no bidi override (issue 31 24). */
	submit(f,
	       "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	       ",\"labels\":{\"k\":\"a\\u001b[2Jb\"}}",
	       -EINVAL, &e);
	assert_string_equal(e.msg, "labels.k: has a control character at byte 2 (a line break, a "
	                           "tab, an escape, a C1 control or a bidirectional override); "
	                           "label values are plain text");
	submit(f,
	       "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"labels\":{\"k\":\"a\\nb\"}}",
	       -EINVAL, &e);
	submit(f,
	       "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	       ",\"labels\":{\"k\":\"\\u009b31m\"}}",
	       -EINVAL, &e);
	submit(f,
	       "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	       ",\"labels\":{\"k\":\"\\u202eevil\"}}",
	       -EINVAL, &e);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"bonnie\",\"bonnie\":{\"size_mb\":64}}",
	       -EINVAL, &e);
	assert_non_null(strstr(e.msg, "directory"));
	/* an engine object that is not the selected one is checked all the same */
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"dd\":{}}", -EINVAL, &e);
	assert_string_equal(e.msg, "dd.count: required (1..1000000000)");
	submit(f, "{\"device\":\"loop0\",\"directory\":\"/tmp\",\"engine\":\"fio\"," FIO_OK "}",
	       -EPERM, &e);
	assert_int_equal(e.code, ERR_DIR_NOT_ALLOWED);
	/* Not in --allow-device: 403 device_not_allowed, as on every route (issue 31 item 23). */
	submit(f, "{\"device\":\"vda\",\"engine\":\"fio\"," FIO_OK "}", -EPERM, &e);
	assert_int_equal(e.code, ERR_DEVICE_NOT_ALLOWED);
	submit(f,
	       "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	       ",\"params\":{\"scheduler\":\"cfq\"}}",
	       -EINVAL, &e);
	assert_int_equal(e.code, ERR_INVALID_VALUE);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"params_restore\":false}",
	       -EINVAL, &e);
	assert_string_equal(e.msg,
	                    "params_restore: false needs params (there is nothing to leave set)");
	submit(f,
	       "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	       ",\"params\":{\"nr_requests\":32},\"params_restore\":0}",
	       -EINVAL, &e);
	assert_string_equal(e.msg, "params_restore: expected true or false");
	/* a raw-device job on a mounted device */
	tu_write(f->root, "proc/self/mounts", "/dev/loop0 /mnt ext4 rw 0 0\n", 0444);
	submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", -EBUSY, &e);
	assert_non_null(strstr(e.msg, "mounted"));
	assert_int_equal(agent_fx_jobs(f), 0);
}

/* job_check is a submit that stops before the queue: same answers, nothing stored, no id. */
static void test_check_without_queueing(void **state)
{
	struct agent_fx *f = *state;
	static const char *const refused[] = {
		"{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
		",\"params\":{\"nr_requests\":3}}",
		"{\"device\":\"vda\",\"engine\":\"fio\"," FIO_OK "}",
		"{\"device\":\"loop0\",\"engine\":\"iozone\",\"iozone\":{\"file_size\":\"1g\"}}",
		"{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"time_based\":true}}",
	};
	struct metric_names names;
	struct job_spec spec;
	struct err e, es;
	char dir[600];
	int64_t id;
	size_t i;

	tu_fake_device(f->root, "vda", 0);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(decode(refused[i], &spec, &e), 0);
		assert_true(job_check(f->a.jobs, &spec, NULL, &e) < 0);
		job_spec_release(&spec);
		assert_int_equal(decode(refused[i], &spec, &es), 0);
		assert_true(job_submit(f->a.jobs, &spec, &id, &es) < 0);
		job_spec_release(&spec);
		assert_int_equal(e.code, es.code);
		assert_string_equal(e.msg, es.msg);
	}
	/* iodepth 5000 is refused by the decoder, before either. */
	assert_int_equal(
	        decode("{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"iodepth\":5000}}",
	               &spec, &e),
	        -EINVAL);
	assert_string_equal(e.msg, "fio.iodepth: must be 1..4096");

	/* Accepted: normalised (directory resolved, sizes canonical), metrics and runtime told. */
	snprintf(dir, sizeof(dir), "%s/jobs", f->root);
	tu_write(f->root, "jobs/.keep", "", 0644);
	agent_fx_down(f); /* the queue takes its --allow-dir list when it starts */
	f->cfg.allow_dirs[0] = f->root;
	f->cfg.n_allow_dirs = 1;
	agent_fx_up(f);
	{
		char body[1024];
		json_t *j;
		char *text;

		snprintf(body, sizeof(body),
		         "{\"device\":\"loop0\",\"engine\":\"fio\",\"directory\":\"%s/../jobs\","
		         "\"fio\":{\"rw\":\"randrw\",\"rwmixread\":100,\"bs\":\"4096\",\"size\":"
		         "\"64m\","
		         "\"runtime_s\":2,\"time_based\":true},\"loops\":3,"
		         "\"params\":{\"nr_requests\":\"32\"}}",
		         dir);
		assert_int_equal(decode(body, &spec, &e), 0);
		assert_int_equal(job_check(f->a.jobs, &spec, NULL, &e), 0);
		assert_string_equal(spec.directory, dir);
		j = wire_job_spec_to_json(&spec);
		text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		assert_non_null(strstr(text, "\"bs\":\"4K\""));
		assert_non_null(strstr(text, "\"size\":\"64M\""));
		assert_non_null(strstr(text, "\"params\":{\"nr_requests\":32}"));
		free(text);
		json_decref(j);
	}
	job_metrics(&spec, &names);
	assert_true(metric_names_has(&names, "read.bw_mib"));
	assert_false(metric_names_has(&names, "write.bw_mib")); /* rwmixread 100: reads only */
	assert_true(job_expected_runtime_s(&spec) == 6);
	job_spec_release(&spec);
	assert_int_equal(agent_fx_jobs(f), 0);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64\n");
}

/* When the restore point cannot be recorded the job must not touch the device. */
static void test_restore_point_unrecorded(void **state)
{
	struct agent_fx *f = *state;
	struct change_rec *changes;
	struct job_rec j;
	struct db *d;
	struct err e;
	char path[600];
	int64_t id;
	int n;

	snprintf(path, sizeof(path), "%s/agent.db", f->root);
	assert_int_equal(db_open(&d, path, &(struct db_kind){ "", ERR_STORE_ERROR, "", 0 }, &e), 0);
	assert_int_equal(db_exec(d,
	                         "CREATE TRIGGER no_restore BEFORE UPDATE OF restore ON jobs "
	                         "BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
	                         &e),
	                 0);
	db_close(d);
	id = submit(f,
	            "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	            ",\"params\":{\"nr_requests\":128}}",
	            0, &e);
	wait_state(f, id, "failed", &j);
	assert_string_equal(j.error_code, "store_error");
	assert_non_null(strstr(j.error_message, "cannot record the restore point"));
	assert_non_null(strstr(j.error_message, "disk full"));
	assert_int_equal(j.loops_done, 0);
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64\n");
	assert_int_equal(store_changes_list(f->a.store, NULL, 100, &changes, &n, &e), 0);
	assert_int_equal(n, 0);
	free(changes);
}

#define KEEP_JOB                                                                                   \
	"{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK                                         \
	",\"params\":{\"nr_requests\":32},\"params_restore\":false}"

/* The device's nr_requests as the fake tree holds it (the writes leave no newline). */
static int nr_requests(struct agent_fx *f)
{
	return atoi(tu_read(f->root, "sys/block/loop0/queue/nr_requests"));
}

/* params_restore false: a write nobody would put back is refused or owned (issue 31 item 1).
 * Refused without a session at submit, and at the start when the session ended while the job
 * waited (nothing written); owned by the session while it is open, and put back by the job
 * itself when the session ended while it ran without restoring. */
static void test_params_keep_owner(void **state)
{
	struct agent_fx *f = *state;
	struct session_rec srec;
	struct change_rec *changes;
	struct job_rec j;
	struct err e;
	int64_t id, slow;
	int n, before;

	/* 1. No session: 409 session_required, nothing queued (and the dry run says the same). */
	submit(f, KEEP_JOB, -ESRCH, &e);
	assert_int_equal(e.code, ERR_SESSION_REQUIRED);
	assert_non_null(strstr(e.msg, "no session is open on 'loop0'"));
	assert_int_equal(agent_fx_jobs(f), 0);

	/* 2. The session expires while the job waits behind another: it fails at its start
	 * with nothing written (before: it ran and left 32 for good). */
	setenv("FAKE_FIO_SLEEP_S", "1.5", 1);
	assert_int_equal(session_open(&f->a.sessions, "loop0", 1, time_now_s(), &srec, &e), 0);
	slow = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	id = submit(f, KEEP_JOB, 0, &e);
	wait_state(f, slow, "running", &j);
	store_job_rec_release(&j);
	assert_int_equal(store_changes_list(f->a.store, NULL, 100, &changes, &n, &e), 0);
	free(changes);
	before = n;
	assert_int_equal(session_expire_due(&f->a.sessions, time_now_s() + 2), 1);
	wait_state(f, id, "failed", &j);
	assert_string_equal(j.error_code, "session_required");
	assert_non_null(strstr(j.error_message, "that session ended before the job started"));
	assert_int_equal(j.loops_done, 0);
	store_job_rec_release(&j);
	assert_int_equal(nr_requests(f), 64);
	assert_int_equal(store_changes_list(f->a.store, NULL, 100, &changes, &n, &e), 0);
	free(changes);
	assert_int_equal(n, before); /* not one write, not even one put back */

	/* 3. The session ends (with its restore) while the job runs: the session puts the
	 * device back, and the job's end writes nothing over it. */
	setenv("FAKE_FIO_SLEEP_S", "1", 1);
	assert_int_equal(session_open(&f->a.sessions, "loop0", 60, time_now_s(), &srec, &e), 0);
	id = submit(f, KEEP_JOB, 0, &e);
	wait_state(f, id, "running", &j);
	store_job_rec_release(&j);
	while (nr_requests(f) != 32)
		usleep(20 * 1000);
	assert_int_equal(
	        session_end(&f->a.sessions, srec.id, true, "closed", time_now_s(), &srec, &e), 0);
	assert_int_equal(nr_requests(f), 64);
	wait_state(f, id, "failed", &j); /* its pass ran under values it did not set */
	assert_string_equal(j.error_code, "params_changed");
	store_job_rec_release(&j);
	assert_int_equal(nr_requests(f), 64);

	/* 4. The session is closed without its restore while the job runs: nobody else will
	 * put the job's write back, so its own end does. */
	assert_int_equal(session_open(&f->a.sessions, "loop0", 60, time_now_s(), &srec, &e), 0);
	id = submit(f, KEEP_JOB, 0, &e);
	wait_state(f, id, "running", &j);
	store_job_rec_release(&j);
	while (nr_requests(f) != 32)
		usleep(20 * 1000);
	assert_int_equal(
	        session_end(&f->a.sessions, srec.id, false, "closed", time_now_s(), &srec, &e), 0);
	assert_int_equal(nr_requests(f), 32);
	wait_state(f, id, "succeeded", &j);
	store_job_rec_release(&j);
	assert_int_equal(nr_requests(f), 64);

	/* 5. Queued inside a session, the agent restarts (the restart ends the session): the job
	 * fails at its start, nothing written. */
	setenv("FAKE_FIO_SLEEP_S", "30", 1);
	assert_int_equal(session_open(&f->a.sessions, "loop0", 60, time_now_s(), &srec, &e), 0);
	slow = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	id = submit(f, KEEP_JOB, 0, &e);
	wait_state(f, slow, "running", &j);
	store_job_rec_release(&j);
	agent_fx_down(f);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	agent_fx_up(f);
	wait_state(f, id, "failed", &j);
	assert_string_equal(j.error_code, "session_required");
	store_job_rec_release(&j);
	assert_int_equal(nr_requests(f), 64);
}

/* Jobs still queued when the agent stops are taken up by the next start and run. */
static void test_queue_survives_restart(void **state)
{
	struct agent_fx *f = *state;
	struct job_rec j;
	struct err e;
	int64_t first, second;

	setenv("FAKE_FIO_SLEEP_S", "30", 1);
	first = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	second = submit(f,
	                "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":\"write\","
	                "\"bs\":\"64k\"},\"loops\":2,\"labels\":{\"run\":\"later\"}}",
	                0, &e);
	wait_state(f, first, "running", &j);
	store_job_rec_release(&j);
	agent_fx_down(f);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	agent_fx_up(f);
	wait_state(f, first, "interrupted", &j);
	store_job_rec_release(&j);
	wait_state(f, second, "succeeded", &j);
	assert_int_equal(j.loops_done, 2);
	assert_string_equal(j.spec.labels[0].value, "later");
	assert_string_equal(j.spec.opts.fio.rw, "write");
	store_job_rec_release(&j);
}

static void test_recovery_after_crash(void **state)
{
	struct agent_fx *f = *state;
	struct tune_snapshot snap;
	struct job_spec spec;
	struct job_rec j;
	struct err e;
	int64_t id;

	/* Play a dead agent's part: a job left running with its params applied and its restore
	 * point saved (straight into the database; this agent's queue never saw it). */
	assert_int_equal(decode("{\"device\":\"loop0\",\"engine\":\"fio\",\"loops\":3}", &spec, &e),
	                 0);
	assert_int_equal(store_job_insert(f->a.store, &spec, time_now_s(), &id, &e), 0);
	job_spec_release(&spec);
	assert_int_equal(store_job_start(f->a.store, id, time_now_s(), &e), 0);
	memset(&snap, 0, sizeof(snap));
	snprintf(snap.device, sizeof(snap.device), "loop0");
	snap.items = calloc(1, sizeof(*snap.items));
	snap.n = 1;
	snprintf(snap.items[0].name, sizeof(snap.items[0].name), "nr_requests");
	snprintf(snap.items[0].previous, sizeof(snap.items[0].previous), "64");
	assert_int_equal(store_job_set_restore(f->a.store, id, &snap, &e), 0);
	tune_snapshot_release(&snap);
	tu_write(f->root, "sys/block/loop0/queue/nr_requests", "999", 0644);
	agent_fx_down(f);
	agent_fx_up(f);
	wait_state(f, id, "interrupted", &j);
	assert_string_equal(j.error_code, "interrupted");
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f->root, "sys/block/loop0/queue/nr_requests"), "64");
}

/* The version's rules, without a queue. */
static void test_version_rules(void **state)
{
	uint64_t q = job_version(JOB_QUEUED, 0, 0), r0 = job_version(JOB_RUNNING, 0, 0);

	(void)state;
	assert_true(q != 0); /* after=0 always answers */
	assert_true(q < r0);
	/* Progress counts in tenths of the job. */
	assert_true(job_version(JOB_RUNNING, 0, 0.09) == r0);
	assert_true(job_version(JOB_RUNNING, 0, 0.1) > r0);
	assert_true(job_version(JOB_RUNNING, 0, 0.25) == job_version(JOB_RUNNING, 0, 0.29));
	/* A new pass is a new version, whatever the progress. */
	assert_true(job_version(JOB_RUNNING, 1, 0.33) > job_version(JOB_RUNNING, 0, 0.33));
	/* The end is a new version; every ending is final, so its kind need not count. */
	assert_true(job_version(JOB_SUCCEEDED, 3, 1) > job_version(JOB_RUNNING, 3, 1));
	assert_true(job_version(JOB_INTERRUPTED, 1, 0.5) > job_version(JOB_RUNNING, 1, 0.5));
	assert_true(job_version(JOB_FAILED, 2, 0.7) == job_version(JOB_CANCELLED, 2, 0.2));
	assert_true(job_version(JOB_SUCCEEDED, 3, 1) != job_version(JOB_SUCCEEDED, 2, 1));
	assert_false(job_changed_since(r0, r0));
	assert_true(job_changed_since(r0, q));
	assert_true(job_changed_since(q, r0));
}

static atomic_int watch_calls, watch_ends;
static _Atomic int64_t watch_last_id, watch_end_id;
static _Atomic double watch_end_at; /* the clock when an end was last said */

static void on_change(void *cls, int64_t id, bool ended)
{
	(void)cls;
	atomic_fetch_add(&watch_calls, 1);
	atomic_store(&watch_last_id, id);
	if (ended) {
		atomic_store(&watch_end_at, time_now_s());
		atomic_fetch_add(&watch_ends, 1);
		atomic_store(&watch_end_id, id);
	}
}

/* A running job's version only grows, and the watcher hears of every change: the start, each
 * progress step, each pass, the end (said to be the end once, the only change an until=end
 * long-poll is woken by); a queued job that is cancelled too. */
static void test_version_watch(void **state)
{
	struct agent_fx *f = *state;
	uint64_t seen[64], v;
	struct job_rec j;
	struct err e;
	int64_t id, queued;
	int nseen = 0, calls, i;

	jobq_watch(f->a.jobs, on_change, NULL);
	id = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"loops\":3}", 0, &e);
	for (i = 0; i < 2000; i++) {
		assert_int_equal(job_get(f->a.jobs, id, &j, &e), 0);
		v = j.version;
		assert_int_equal(v, job_version((enum job_state)job_state_parse(j.state),
		                                j.loops_done, j.progress));
		if (nseen == 0 || seen[nseen - 1] != v) {
			/* Never back. */
			assert_true(nseen == 0 || v > seen[nseen - 1]);
			if (nseen < 64)
				seen[nseen++] = v;
		}
		if (!strcmp(j.state, "succeeded")) {
			store_job_rec_release(&j);
			break;
		}
		store_job_rec_release(&j);
		usleep(2 * 1000);
	}
	assert_int_equal(seen[nseen - 1], job_version(JOB_SUCCEEDED, 3, 1));
	/* The end is announced after its row is committed: a reader can see "succeeded" first. */
	for (i = 0; i < 1000 && atomic_load(&watch_ends) == 0; i++)
		usleep(2 * 1000);
	calls = atomic_load(&watch_calls);
	/* start + 3 passes + end at least; at most one more per progress step. */
	assert_true(calls >= 5);
	assert_true(calls <= 5 + JOB_PROGRESS_STEPS);
	/* A pass lands in two steps a reader may see (its row, then the progress), announced
	 * once, after both. */
	assert_true(nseen - 1 <= 2 * calls);
	assert_int_equal(atomic_load(&watch_last_id), id);
	assert_int_equal(atomic_load(&watch_ends), 1);
	assert_int_equal(atomic_load(&watch_end_id), id);
	assert_true(job_wait_key(id, true) != job_wait_key(id, false));
	assert_true(job_wait_key(id, false) != job_wait_key(id + 1, false));

	/* A queued job cancelled: announced, as its end. */
	setenv("FAKE_FIO_SLEEP_S", "30", 1);
	id = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	queued = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	wait_state(f, id, "running", &j);
	store_job_rec_release(&j);
	/* The running job's progress moves each tenth of its 1 s runtime, up to 0.99: once it
	 * stands at 0.9 nothing but the cancel can be said (on a loaded machine the cancel below
	 * would otherwise meet a progress step: failed once in CI). */
	for (i = 0; i < 1000; i++) {
		double p;

		assert_int_equal(job_get(f->a.jobs, id, &j, &e), 0);
		p = j.progress;
		store_job_rec_release(&j);
		if (p >= 0.9)
			break;
		usleep(10 * 1000);
	}
	calls = atomic_load(&watch_calls);
	assert_int_equal(job_cancel(f->a.jobs, queued, &e), 0);
	assert_int_equal(atomic_load(&watch_calls), calls + 1);
	assert_int_equal(atomic_load(&watch_last_id), queued);
	assert_int_equal(atomic_load(&watch_ends), 2);
	assert_int_equal(atomic_load(&watch_end_id), queued);
	/* Unwatched: nothing more is said. */
	jobq_watch(f->a.jobs, NULL, NULL);
	calls = atomic_load(&watch_calls);
	assert_int_equal(job_cancel(f->a.jobs, id, &e), 0);
	assert_int_equal(atomic_load(&watch_calls), calls);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
}

/* A job's end is announced to the watcher (the until=end long-polls) once the device's next
 * job, due within a couple of seconds, has begun and run 0.3 s past its moment, so that the
 * answers land neither before that start nor in the moment; with the next job further off, at
 * once. Either way the end is recorded at once. */
static void test_end_after_next_begun(void **state)
{
	struct agent_fx *f = *state;
	char body[512], at[40];
	struct job_rec j;
	struct err e;
	int64_t a, b;
	double b_at;
	int i, ends;

	atomic_store(&watch_ends, 0);
	atomic_store(&watch_end_id, 0);
	jobq_watch(f->a.jobs, on_change, NULL);
	setenv("FAKE_FIO_SLEEP_S", "0.8", 1); /* b's pass outlasts its moment + 0.3 s */
	a = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	b_at = floor((time_now_s() + 1.5) * 1000) / 1000;
	time_fmt_iso_ms(b_at, at, sizeof(at));
	snprintf(body, sizeof(body),
	         "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"start_at\":\"%s\"}", at);
	b = submit(f, body, 0, &e);
	wait_state(f, a, "succeeded", &j);
	store_job_rec_release(&j);
	/* Read the ends said before b's begun_at: an end is said only once b's begun_at is
	 * recorded, so b not begun now means nothing was said then. */
	ends = atomic_load(&watch_ends);
	assert_int_equal(job_get(f->a.jobs, b, &j, &e), 0);
	if (!(j.begun_at > 0)) /* b holds for its moment: a's end is not said yet */
		assert_int_equal(ends, 0);
	store_job_rec_release(&j);
	for (i = 0; i < 500 && atomic_load(&watch_ends) == 0; i++)
		usleep(10 * 1000);
	assert_int_equal(atomic_load(&watch_ends), 1);
	assert_int_equal(atomic_load(&watch_end_id), a);
	assert_int_equal(job_get(f->a.jobs, b, &j, &e), 0);
	assert_true(j.begun_at > 0); /* said once b began, 0.3 s past its moment */
	assert_true(atomic_load(&watch_end_at) >= b_at + 0.3);
	store_job_rec_release(&j);
	wait_state(f, b, "succeeded", &j);
	store_job_rec_release(&j);

	/* The next job 30 s off: the end is said at once. */
	a = submit(f, "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", 0, &e);
	time_fmt_iso_ms(time_now_s() + 30, at, sizeof(at));
	snprintf(body, sizeof(body),
	         "{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK ",\"start_at\":\"%s\"}", at);
	b = submit(f, body, 0, &e);
	wait_state(f, a, "succeeded", &j);
	store_job_rec_release(&j);
	for (i = 0; i < 100 && atomic_load(&watch_end_id) != a; i++)
		usleep(10 * 1000);
	assert_int_equal(atomic_load(&watch_end_id), a);
	assert_int_equal(job_cancel(f->a.jobs, b, &e), 0);
	assert_int_equal(atomic_load(&watch_end_id), b);
	jobq_watch(f->a.jobs, NULL, NULL);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
}

/* The clock the queue is given: each reading is one second after the one before. */
#define FAKE_EPOCH_S 2000000000.0 /* 2033-05-18T03:33:20Z */
static atomic_int clock_reads;

static double fake_now_s(void)
{
	return FAKE_EPOCH_S + atomic_fetch_add(&clock_reads, 1);
}

/* Submit a fio job to q, its passes taking sleep_s, with the clock back at its epoch. */
static int64_t queue_submit(struct jobq *q, const char *sleep_s)
{
	struct job_spec spec;
	struct err e;
	int64_t id;

	atomic_store(&clock_reads, 0);
	setenv("FAKE_FIO_SLEEP_S", sleep_s, 1);
	assert_int_equal(decode("{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK "}", &spec, &e),
	                 0);
	assert_int_equal(job_submit(q, &spec, &id, &e), 0);
	job_spec_release(&spec);
	return id;
}

/* The queue on its own, without an agent: a jobq_env of the test's making, with a clock it
 * turns. Every time a job records comes from that clock, in order: created, started, the
 * pass's start and end, finished; and a request's write names the clock's time. */
static void test_queue_clock(void **state)
{
	struct tune_item written = { .name = "nr_requests", .previous = "64", .applied = "32" };
	struct queue_fx f;
	struct pass_rec *passes;
	struct jobq *q;
	struct job_rec j;
	struct err e;
	char contain_dir[640];
	int64_t id;
	int n, i;

	(void)state;
	queue_fx_start(&f, fake_now_s, NULL, NULL);
	q = f.q;
	err_clear(&e);
	id = queue_submit(q, "0.2");
	queue_wait(q, id, "succeeded", &j);
	assert_true(j.created_at == FAKE_EPOCH_S);
	assert_true(j.started_at == FAKE_EPOCH_S + 1);
	assert_true(j.finished_at == FAKE_EPOCH_S + 4);
	store_job_rec_release(&j);
	assert_int_equal(job_passes(q, id, &passes, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_true(passes[0].started_at == FAKE_EPOCH_S + 2);
	assert_true(passes[0].finished_at == FAKE_EPOCH_S + 3);
	free(passes);

	/* A write during a pass (once the pass has read the clock: its begun_at is recorded, after
	 * its containment record, which is made before the pass reads the clock) is named with the
	 * time the clock gave. */
	id = queue_submit(q, "30");
	snprintf(contain_dir, sizeof(contain_dir), "%s/contain/job-%lld", f.root, (long long)id);
	for (i = 0; i < 200; i++) {
		bool begun;

		assert_int_equal(job_get(q, id, &j, &e), 0);
		begun = j.begun_at > 0;
		store_job_rec_release(&j);
		if (begun)
			break;
		usleep(50 * 1000);
	}
	assert_int_equal(access(contain_dir, F_OK), 0);
	job_params_written(q, "loop0", &written, 1, "request 7 PATCH /api/v1/devices/loop0/params");
	assert_int_equal(job_get(q, id, &j, &e), 0);
	assert_true(j.has_params_changed);
	assert_string_equal(j.params_changed,
	                    "request 7 PATCH /api/v1/devices/loop0/params wrote 1 "
	                    "value(s) at 2033-05-18T03:33:23Z");
	store_job_rec_release(&j);
	assert_int_equal(job_cancel(q, id, &e), 0);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	queue_fx_stop(&f);
}

/* A monotonic clock 100 times as fast as the real one: a 32 s deadline passes in 0.32 s. */
/* The queue's clock in test_pass_deadline: 100 times the real one (a 32 s deadline passes in
 * 0.32 s), until clock_real() makes it run at the real pace from where it stands (it never
 * jumps), so that the next job's passes are not cut short on a loaded machine. */
static pthread_mutex_t clock_mu = PTHREAD_MUTEX_INITIALIZER;
static double clock_factor = 100, clock_ref_s, clock_base_s;

static double fast_mono_s(void)
{
	double now;

	pthread_mutex_lock(&clock_mu);
	now = clock_base_s + (time_mono_s() - clock_ref_s) * clock_factor;
	pthread_mutex_unlock(&clock_mu);
	return now;
}

static void clock_real(void)
{
	double now = time_mono_s();

	pthread_mutex_lock(&clock_mu);
	clock_base_s += (now - clock_ref_s) * clock_factor;
	clock_ref_s = now;
	clock_factor = 1;
	pthread_mutex_unlock(&clock_mu);
}

/* A pass that runs past its deadline (an engine that hangs: fake fio sleeping 600 s where it
 * should take 1 s) is stopped, the job fails "engine_timeout" naming the deadline, its params
 * are put back, and the next job runs (issue 31 item 9). */
static void test_pass_deadline(void **state)
{
	struct queue_fx f;
	struct job_spec spec;
	struct jobq *q;
	struct job_rec j;
	struct err e;
	int64_t id, next;
	double t0;

	(void)state;
	queue_fx_start(&f, NULL, fast_mono_s, NULL);
	q = f.q;
	err_clear(&e);
	setenv("FAKE_FIO_SLEEP_S", "600", 1);
	assert_int_equal(decode("{\"device\":\"loop0\",\"engine\":\"fio\"," FIO_OK
	                        ",\"loops\":2,\"params\":{\"nr_requests\":32}}",
	                        &spec, &e),
	                 0);
	assert_int_equal(job_submit(q, &spec, &id, &e), 0);
	job_spec_release(&spec);
	assert_int_equal(job_get(q, id, &j, &e), 0);
	assert_true(j.pass_deadline_s == 32); /* 2 x runtime_s 1 + 30 */
	assert_true(j.run_deadline_s == 2 * (32 + CANCEL_GRACE_S));
	store_job_rec_release(&j);
	t0 = time_mono_s();
	queue_wait(q, id, "failed", &j);
	assert_true(time_mono_s() - t0 < 8); /* 0.32 s, the fake's SIGTERM, the poll */
	assert_string_equal(j.error_code, "engine_timeout");
	assert_string_equal(j.error_message,
	                    "fio ran past its deadline of 32 s in pass 1 of 2 and was stopped (the "
	                    "deadline is 2 x what the pass should take, 1 s, + 30 s)");
	assert_int_equal(j.loops_done, 0);
	store_job_rec_release(&j);
	assert_string_equal(tu_read(f.root, "sys/block/loop0/queue/nr_requests"), "64");
	/* The queue goes on (a 0.1 s pass: on the real clock, as 0.32 s would not be under load).
	 */
	clock_real();
	setenv("FAKE_FIO_SLEEP_S", "0.1", 1);
	next = queue_submit(q, "0.1");
	queue_wait(q, next, "succeeded", &j);
	store_job_rec_release(&j);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	queue_fx_stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_job_succeeds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_job_fails_and_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_specs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_without_queueing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_point_unrecorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_params_keep_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_survives_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recovery_after_crash, setup, teardown),
		cmocka_unit_test(test_version_rules),
		cmocka_unit_test_setup_teardown(test_version_watch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_after_next_begun, setup, teardown),
		cmocka_unit_test(test_queue_clock),
		cmocka_unit_test(test_pass_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
