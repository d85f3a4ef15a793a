/* test_job_lanes.c -- the job queue with two devices (loop0, loop1) and the fake fio: jobs on
 * different devices run at the same moment, jobs on one device one at a time in FIFO order;
 * cancel, a write's mark, /metrics' lane view, shutdown and crash recovery with a job running
 * on each device; and two checks of filesystem jobs on one device at once, whose mkfs dry runs
 * (each opening the device exclusively) take turns. */
#include <errno.h>
#include <pthread.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agenttest.h"
#include "timeutil.h"
#include "wire/wire.h"
#include "xmalloc.h"

/* The fixture's agent with loop1 beside loop0, both allowlisted. */
static int setup(void **state)
{
	struct agent_fx *f = calloc(1, sizeof(*f));

	f->root = tu_tmpdir();
	tu_fake_device(f->root, "loop0", 0);
	tu_fake_device(f->root, "loop1", 0);
	snprintf(f->fio, sizeof(f->fio), "%s/fake-fio.sh", FT_FIXTURES);
	f->cfg.node_name = "test";
	f->cfg.state_dir = f->root;
	f->cfg.sysfs_root = f->root;
	f->cfg.fio_path = f->fio;
	f->cfg.allow_devices[0] = "loop0";
	f->cfg.allow_devices[1] = "loop1";
	f->cfg.n_allow_devices = 2;
	unsetenv("FAKE_FIO_FAIL");
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	agent_fx_up(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	agent_fx_free(*state);
	return 0;
}

static int64_t submit(struct agent_fx *f, const char *body_json)
{
	json_t *body = json_loads(body_json, 0, NULL);
	struct job_spec spec;
	struct err e;
	int64_t id = 0;

	assert_non_null(body);
	err_clear(&e);
	if (wire_job_spec_from_json(body, &spec, &e) || job_submit(f->a.jobs, &spec, &id, &e))
		fail_msg("%s: %s", body_json, e.msg);
	job_spec_release(&spec);
	json_decref(body);
	return id;
}

/* A job on dev for loops passes, nr_requests set to nr (0: no params). */
static int64_t submit_on(struct agent_fx *f, const char *dev, int loops, int nr)
{
	char body[400], params[64] = "";

	if (nr)
		snprintf(params, sizeof(params), ",\"params\":{\"nr_requests\":%d}", nr);
	snprintf(body, sizeof(body),
	         "{\"device\":\"%s\",\"engine\":\"fio\",\"loops\":%d,\"fio\":{\"rw\":\"randwrite\","
	         "\"bs\":\"4k\",\"runtime_s\":1,\"time_based\":true}%s}",
	         dev, loops, params);
	return submit(f, body);
}

static void wait_state(struct agent_fx *f, int64_t id, const char *state, struct job_rec *out)
{
	queue_wait_state(f->a.jobs, id, state, 10, out);
}

/* Wait until job id's first pass has begun (its containment record is there): its params are
 * applied and its restore point saved by then. */
static void wait_pass(struct agent_fx *f, int64_t id)
{
	char path[600];
	int i;

	snprintf(path, sizeof(path), "%s/contain/job-%lld", f->root, (long long)id);
	for (i = 0; i < 400 && access(path, F_OK) != 0; i++)
		usleep(25 * 1000);
	assert_int_equal(access(path, F_OK), 0);
}

/* The first pass's start and the last pass's end of finished job id. */
static void job_span(struct agent_fx *f, int64_t id, double *from, double *to)
{
	struct pass_rec *passes;
	struct err e;
	int n;

	assert_int_equal(job_passes(f->a.jobs, id, &passes, &n, &e), 0);
	assert_true(n > 0);
	*from = passes[0].started_at;
	*to = passes[n - 1].finished_at;
	free(passes);
}

static const char *nr_requests(struct agent_fx *f, const char *dev)
{
	char path[64];

	snprintf(path, sizeof(path), "sys/block/%s/queue/nr_requests", dev);
	return tu_read(f->root, path);
}

/* Two devices, one job each, submitted together: their passes overlap in time, each device
 * gets its own params and each is put back. A second job on loop0 starts after loop0's first
 * has ended (serial, FIFO), even though loop1 was free. */
static void test_devices_run_together(void **state)
{
	struct agent_fx *f = *state;
	double a0, a1, b0, b1, c0, c1;
	int64_t a, b, c;
	struct job_rec j;
	struct err e;

	unsetenv("FAKE_FIO_SLEEP_S"); /* the fake fio sleeps its --runtime: 1 s a pass */
	a = submit_on(f, "loop0", 2, 32);
	c = submit_on(f, "loop0", 1, 0);
	b = submit_on(f, "loop1", 2, 128);
	wait_state(f, a, "running", &j);
	store_job_rec_release(&j);
	wait_state(f, b, "running", &j);
	store_job_rec_release(&j);
	/* loop0's second job waits for its first, whatever loop1 does. */
	assert_int_equal(job_get(f->a.jobs, c, &j, &e), 0);
	assert_string_equal(j.state, "queued");
	store_job_rec_release(&j);
	wait_state(f, a, "succeeded", &j);
	assert_non_null(strstr(j.applied, "\"value\":32"));
	store_job_rec_release(&j);
	wait_state(f, b, "succeeded", &j);
	assert_non_null(strstr(j.applied, "\"value\":128"));
	store_job_rec_release(&j);
	wait_state(f, c, "succeeded", &j);
	store_job_rec_release(&j);
	job_span(f, a, &a0, &a1);
	job_span(f, b, &b0, &b1);
	job_span(f, c, &c0, &c1);
	/* 2 passes of 1 s each: a and b overlap (they ran at the same moment, not one after the
	 * other: that would take 4 s), c began after a ended. */
	assert_true(a0 < b1 && b0 < a1);
	assert_true(b1 - a0 < 3.5 && a1 - b0 < 3.5);
	assert_true(c0 >= a1);
	assert_string_equal(nr_requests(f, "loop0"), "64");
	assert_string_equal(nr_requests(f, "loop1"), "64");
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
}

/* Cancel stops the one job asked for; a write on loop1 marks loop1's job, not loop0's; the lane
 * view says what runs and waits where. */
static void test_cancel_and_marks_per_device(void **state)
{
	struct agent_fx *f = *state;
	struct tune_item written = { .name = "nr_requests", .previous = "64", .applied = "16" };
	struct jobq_lane_info *lanes;
	int64_t a, b, q0;
	struct job_rec j;
	struct err e;
	int n;

	setenv("FAKE_FIO_SLEEP_S", "30", 1);
	a = submit_on(f, "loop0", 1, 32);
	q0 = submit_on(f, "loop0", 1, 0);
	b = submit_on(f, "loop1", 1, 128);
	wait_state(f, a, "running", &j);
	store_job_rec_release(&j);
	wait_state(f, b, "running", &j);
	store_job_rec_release(&j);
	wait_pass(f, a);
	wait_pass(f, b);
	jobq_lanes(f->a.jobs, &lanes, &n);
	assert_int_equal(n, 2);
	assert_string_equal(lanes[0].device, "loop0");
	assert_true(lanes[0].running_id == a);
	assert_int_equal(lanes[0].queued, 1);
	assert_string_equal(lanes[1].device, "loop1");
	assert_true(lanes[1].running_id == b);
	assert_int_equal(lanes[1].queued, 0);
	free(lanes);

	job_params_written(f->a.jobs, "loop1", &written, 1, "request 9 PATCH");
	assert_int_equal(job_get(f->a.jobs, b, &j, &e), 0);
	assert_true(j.has_params_changed);
	store_job_rec_release(&j);
	assert_int_equal(job_get(f->a.jobs, a, &j, &e), 0);
	assert_false(j.has_params_changed);
	store_job_rec_release(&j);

	/* Cancelling loop1's job leaves loop0's running. */
	assert_int_equal(job_cancel(f->a.jobs, b, &e), 0);
	wait_state(f, b, "cancelled", &j);
	store_job_rec_release(&j);
	assert_int_equal(job_get(f->a.jobs, a, &j, &e), 0);
	assert_string_equal(j.state, "running");
	store_job_rec_release(&j);
	assert_string_equal(nr_requests(f, "loop0"), "32");
	/* loop1's restore point lost nr_requests to the write (the write's value stays). */
	assert_string_equal(nr_requests(f, "loop1"), "128");

	/* Shutdown with loop0's job running and one queued: interrupted and put back; the
	 * queued one is taken up again. */
	agent_fx_down(f);
	setenv("FAKE_FIO_SLEEP_S", "0.2", 1);
	agent_fx_up(f);
	wait_state(f, a, "interrupted", &j);
	store_job_rec_release(&j);
	assert_string_equal(nr_requests(f, "loop0"), "64");
	wait_state(f, q0, "succeeded", &j);
	store_job_rec_release(&j);
}

/* A dead agent left a job running on each device: a restart marks both interrupted and puts
 * back each one's params. */
static void test_recovery_of_every_running_job(void **state)
{
	struct agent_fx *f = *state;
	const char *devs[2] = { "loop0", "loop1" };
	int64_t ids[2];
	struct job_rec j;
	struct err e;
	int k;

	for (k = 0; k < 2; k++) {
		struct tune_snapshot snap;
		struct job_spec spec;
		char body[128], path[64];
		json_t *o;

		snprintf(body, sizeof(body), "{\"device\":\"%s\",\"engine\":\"fio\",\"loops\":3}",
		         devs[k]);
		o = json_loads(body, 0, NULL);
		err_clear(&e);
		assert_int_equal(wire_job_spec_from_json(o, &spec, &e), 0);
		json_decref(o);
		assert_int_equal(store_job_insert(f->a.store, &spec, time_now_s(), &ids[k], &e), 0);
		job_spec_release(&spec);
		assert_int_equal(store_job_start(f->a.store, ids[k], time_now_s(), &e), 0);
		memset(&snap, 0, sizeof(snap));
		snprintf(snap.device, sizeof(snap.device), "%s", devs[k]);
		snap.items = calloc(1, sizeof(*snap.items));
		snap.n = 1;
		snprintf(snap.items[0].name, sizeof(snap.items[0].name), "nr_requests");
		snprintf(snap.items[0].previous, sizeof(snap.items[0].previous), "64");
		assert_int_equal(store_job_set_restore(f->a.store, ids[k], &snap, &e), 0);
		tune_snapshot_release(&snap);
		snprintf(path, sizeof(path), "sys/block/%s/queue/nr_requests", devs[k]);
		tu_write(f->root, path, k ? "333" : "999", 0644);
	}
	agent_fx_down(f);
	agent_fx_up(f);
	for (k = 0; k < 2; k++) {
		wait_state(f, ids[k], "interrupted", &j);
		assert_string_equal(j.error_code, "interrupted");
		store_job_rec_release(&j);
		assert_string_equal(nr_requests(f, devs[k]), "64");
	}
}

/* A mkfs.ext4 (and tune2fs) first in PATH that opens the device exclusively as the real one
 * does (mkfs.xfs: O_EXCL), a lock file standing for the device: a second one at the same time
 * is refused, as the kernel refuses a second exclusive open with EBUSY. */
static void fake_mkfs_install(const char *root)
{
	char dir[512], path[600], lock[600], env[4096];
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/bin", root);
	snprintf(lock, sizeof(lock), "%s/device.lock", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/mkfs.ext4", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp,
	        "#!/bin/sh\n"
	        "exec 9>'%s'\n"
	        "flock -n 9 || { echo \"$0: $2: Device or resource busy\" >&2; exit 1; }\n"
	        "sleep 0.3\n",
	        lock);
	fclose(fp);
	chmod(path, 0700);
	snprintf(path, sizeof(path), "%s/tune2fs", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("#!/bin/sh\nexit 0\n", fp);
	fclose(fp);
	chmod(path, 0700);
	snprintf(env, sizeof(env), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", env, 1);
}

struct check_arg {
	struct agent_fx *f;
	int rc;
	struct err e;
};

static void *check_main(void *arg)
{
	struct check_arg *c = arg;
	json_t *body = json_loads(
	        "{\"device\":\"loop0\",\"engine\":\"fio\",\"fio\":{\"rw\":"
	        "\"write\",\"size\":\"64m\",\"runtime_s\":1,\"time_based\":true},\"filesystem\":"
	        "{\"type\":\"ext4\",\"mkfs\":[\"-b\",\"4096\"]}}",
	        0, NULL);
	struct job_spec spec;

	err_clear(&c->e);
	c->rc = wire_job_spec_from_json(body, &spec, &c->e);
	if (c->rc == 0)
		c->rc = job_check(c->f->a.jobs, &spec, NULL, &c->e);
	job_spec_release(&spec);
	json_decref(body);
	return NULL;
}

/* Two filesystem jobs checked at the same moment on one device (two requests, or a request and
 * the lane making its job's filesystem): mkfs's dry runs open the device exclusively, so the
 * checks take turns, and neither is refused because of the other ("mkfs.xfs's dry run (-N)
 * refuses: mkfs.xfs: cannot open /dev/loop3: Device or resource busy", issue 30). */
static void test_device_checks_take_turns(void **state)
{
	struct agent_fx *f = *state;
	char *old_path = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;
	struct check_arg c[2] = { { f, -1, { 0 } }, { f, -1, { 0 } } };
	pthread_t t[2];
	double t0, took_s;
	int k;

	agent_fx_down(f);
	f->cfg.allow_format_all = true;
	agent_fx_up(f);
	fake_mkfs_install(f->root);
	t0 = time_mono_s();
	for (k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&t[k], NULL, check_main, &c[k]), 0);
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	took_s = time_mono_s() - t0;
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	for (k = 0; k < 2; k++) {
		if (c[k].rc && c[k].e.code == ERR_ENGINE_UNAVAILABLE)
			skip(); /* no ext4 in this kernel */
		if (c[k].rc)
			fail_msg("check %d: %s", k, c[k].e.msg);
	}
	/* one after the other: each dry run holds the device 0.3 s */
	assert_true(took_s >= 0.55);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_devices_run_together, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_and_marks_per_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recovery_of_every_running_job, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_device_checks_take_turns, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
