/* test_tune.c -- PATCH semantics: validation first, scheduler-first ordering, rollback, snapshots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/tune.h"
#include "testutil.h"

#define MAX_LOG 64

struct fx {
	char *root;
	const char *allow[1];
	struct sysfs fs;
	struct tune t;
	char log[MAX_LOG][96]; /* "outcome name applied" per audited write */
	int n_log;
	int n_intent; /* intents recorded */
	int fail_at;  /* the intent (1-based) from which recording fails; 0: never */
};

/* The audit store: fails from the fail_at-th intent on, like a full disk. */
static int intent_cb(void *cls, struct tune_change *c, struct err *e)
{
	struct fx *f = cls;

	if (f->fail_at && f->n_intent + 1 >= f->fail_at)
		return err_set(e, -ENOSPC, ERR_STORE_ERROR, "database or disk is full");
	c->id = ++f->n_intent;
	return 0;
}

static void outcome_cb(void *cls, const struct tune_change *c)
{
	struct fx *f = cls;

	if (f->n_log < MAX_LOG)
		snprintf(f->log[f->n_log++], sizeof(f->log[0]), "%s %s %s%s", c->outcome, c->name,
		         c->applied ? c->applied : "-", c->id ? "" : " unaudited");
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char target[512];

	f->root = tu_tmpdir();
	tu_fake_device(f->root, "loop0", 0);
	/* A parameter the "kernel" always rejects: writes to /dev/full fail with ENOSPC. */
	snprintf(target, sizeof(target), "%s/sys/block/loop0/queue/zz_reject", f->root);
	assert_int_equal(symlink("/dev/full", target), 0);
	f->allow[0] = "loop0";
	f->fs.root = f->root;
	f->fs.allow_devices = f->allow;
	f->fs.n_allow_devices = 1;
	{
		struct tune_audit audit = { .intent = intent_cb, .outcome = outcome_cb, .cls = f };

		tune_init(&f->t, &f->fs, &audit);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tune_release(&f->t);
	tu_rmrf(f->root);
	free(f->root);
	free(f);
	return 0;
}

static void item(struct tune_item *it, const char *name, const char *value)
{
	memset(it, 0, sizeof(*it));
	snprintf(it->name, sizeof(it->name), "%s", name);
	snprintf(it->requested, sizeof(it->requested), "%s", value);
}

static const char *q(struct fx *f, const char *file)
{
	static char path[256];

	snprintf(path, sizeof(path), "sys/block/loop0/queue/%s", file);
	return tu_read(f->root, path);
}

static void test_order_scheduler_first(void **state)
{
	struct fx *f = *state;
	struct tune_item items[3];
	bool rb;
	struct err e;

	/* The fake tree does not swap queue/iosched on a switch: bfq's attribute is there. */
	tu_write(f->root, "sys/block/loop0/queue/iosched/slice_idle", "8\n", 0644);
	item(&items[0], "iosched.slice_idle", "32");
	item(&items[1], "nr_requests", "128");
	item(&items[2], "scheduler", "bfq");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 3, "test", &rb, &e), 0);
	assert_false(rb);
	assert_int_equal(f->n_log, 3);
	assert_string_equal(f->log[0], "ok scheduler bfq");
	assert_string_equal(f->log[1], "ok nr_requests 128");
	assert_string_equal(f->log[2], "ok iosched.slice_idle 32");
	assert_string_equal(items[2].previous, "mq-deadline");
	assert_string_equal(items[1].previous, "64");
	assert_string_equal(items[1].applied, "128");
	assert_false(items[1].adjusted);
}

/* nr_requests' bound is the kernel's (issue 31 item 18): with a scheduler 2048, without one the
 * device's tag depth (mq/N/nr_tags), judged for the scheduler a request switches to; refused
 * before any write, so an owned device (a profile) and a free one answer alike. */
static void test_nr_requests_bound(void **state)
{
	struct fx *f = *state;
	struct tune_item items[2];
	struct param p;
	bool rb;
	struct err e;

	/* A device that shows no tags: no bound known (as before). */
	item(&items[0], "nr_requests", "100000");
	assert_int_equal(tune_validate(&f->t, "loop0", items, 1, &e), 0);
	tu_write(f->root, "sys/block/loop0/mq/0/nr_tags", "128\n", 0444);
	tu_write(f->root, "sys/block/loop0/mq/1/nr_tags", "96\n", 0444);
	assert_int_equal(sysfs_param_read(&f->fs, "loop0", "nr_requests", &p, &e), 0);
	assert_true(p.has_max);
	assert_int_equal(p.max, 2048); /* mq-deadline is active */
	item(&items[0], "nr_requests", "100000");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 1, "test", &rb, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_VALUE);
	assert_non_null(strstr(e.msg, "2048"));
	assert_int_equal(f->n_log, 0);
	item(&items[0], "nr_requests", "2048");
	assert_int_equal(tune_validate(&f->t, "loop0", items, 1, &e), 0);
	/* Switching to none: the tag depth (the smallest queue's) bounds it. */
	item(&items[0], "scheduler", "none");
	item(&items[1], "nr_requests", "128");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 2, "test", &rb, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "96"));
	assert_int_equal(f->n_log, 0);
	assert_string_equal(q(f, "scheduler"), "none [mq-deadline] kyber bfq\n");
	item(&items[0], "scheduler", "none");
	item(&items[1], "nr_requests", "96");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 2, "test", &rb, &e), 0);
	/* ... and back to a scheduler: 2048 may come with the switch. */
	tu_write(f->root, "sys/block/loop0/queue/scheduler", "[none] mq-deadline kyber bfq\n",
	         0644);
	item(&items[0], "scheduler", "mq-deadline");
	item(&items[1], "nr_requests", "1024");
	assert_int_equal(tune_validate(&f->t, "loop0", items, 2, &e), 0);
	item(&items[0], "nr_requests", "1024");
	assert_int_equal(tune_validate(&f->t, "loop0", items, 1, &e), -EINVAL);
}

static void test_alias_reported(void **state)
{
	struct fx *f = *state;
	struct tune_item it;
	bool rb;
	struct err e;

	item(&it, "scheduler", "deadline");
	assert_int_equal(tune_apply(&f->t, "loop0", &it, 1, "test", &rb, &e), 0);
	assert_true(it.aliased);
	assert_string_equal(it.canon, "mq-deadline");
}

static void test_validation_writes_nothing(void **state)
{
	struct fx *f = *state;
	struct tune_item items[3];
	bool rb;
	struct err e;

	item(&items[0], "scheduler", "none");
	item(&items[1], "nr_requests", "256");
	item(&items[2], "rq_affinity", "7");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 3, "test", &rb, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_VALUE);
	assert_non_null(strstr(e.msg, "rq_affinity"));
	assert_false(rb);
	assert_int_equal(f->n_log, 0);
	assert_string_equal(q(f, "scheduler"), "none [mq-deadline] kyber bfq\n");
	assert_string_equal(q(f, "nr_requests"), "64\n");

	item(&items[0], "no_such_param", "1");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 1, "test", &rb, &e), -ENOENT);
	assert_int_equal(e.code, ERR_UNKNOWN_PARAM);
	item(&items[0], "setra", "512");
	item(&items[1], "read_ahead_kb", "256");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 2, "test", &rb, &e), -EINVAL);
	assert_int_equal(f->n_log, 0);
}

static void test_rollback(void **state)
{
	struct fx *f = *state;
	struct tune_item items[4];
	struct params ps;
	bool rb;
	struct err e;

	item(&items[0], "read_ahead_kb", "4096");
	item(&items[1], "scheduler", "kyber");
	item(&items[2], "nr_requests", "512");
	item(&items[3], "zz_reject", "1");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 4, "test", &rb, &e), -ENOSPC);
	assert_int_equal(e.code, ERR_KERNEL_REJECTED);
	assert_non_null(strstr(e.msg, "zz_reject"));
	assert_true(rb);
	/* written: scheduler, nr_requests, read_ahead_kb; rejected: zz_reject; then rolled back */
	assert_string_equal(f->log[0], "ok scheduler kyber");
	assert_string_equal(f->log[1], "ok nr_requests 512");
	assert_string_equal(f->log[2], "ok read_ahead_kb 4096");
	assert_string_equal(f->log[3], "rejected zz_reject -");
	assert_string_equal(f->log[4], "rolled_back scheduler mq-deadline");
	assert_int_equal(f->n_log, 7);
	assert_int_equal(sysfs_params_read(&f->fs, "loop0", &ps, &e), 0);
	assert_string_equal(sysfs_params_find(&ps, "scheduler")->value, "mq-deadline");
	assert_string_equal(sysfs_params_find(&ps, "nr_requests")->value, "64");
	assert_string_equal(sysfs_params_find(&ps, "read_ahead_kb")->value, "128");
	sysfs_params_release(&ps);
}

static void test_not_allowlisted(void **state)
{
	struct fx *f = *state;
	struct tune_item it;
	bool rb;
	struct err e;

	tu_fake_device(f->root, "vda", 0);
	item(&it, "nr_requests", "32");
	assert_int_equal(tune_apply(&f->t, "vda", &it, 1, "test", &rb, &e), -EPERM);
	assert_int_equal(e.code, ERR_DEVICE_NOT_ALLOWED);
	assert_string_equal(tu_read(f->root, "sys/block/vda/queue/nr_requests"), "64\n");
}

/* The previous value a snapshot saved for name, or NULL. */
static const char *saved(const struct tune_snapshot *snap, const char *name)
{
	int i;

	for (i = 0; i < snap->n; i++)
		if (!strcmp(snap->items[i].name, name))
			return snap->items[i].previous;
	return NULL;
}

static void test_snapshot_restore(void **state)
{
	struct fx *f = *state;
	struct tune_snapshot snap;
	struct tune_item items[2];
	bool rb;
	struct tune_restore_count count;
	struct err e;

	assert_int_equal(tune_snapshot_take(&f->t, "loop0", &snap, &e), 0);
	assert_true(snap.n > 5);
	assert_string_equal(saved(&snap, "nr_requests"), "64");
	assert_null(saved(&snap, "setra"));              /* mirrors read_ahead_kb */
	assert_null(saved(&snap, "logical_block_size")); /* read-only */
	item(&items[0], "scheduler", "bfq");
	item(&items[1], "nr_requests", "1000");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 2, "test", &rb, &e), 0);
	f->n_log = 0;
	assert_int_equal(tune_restore(&f->t, &snap, "restore", &count, &e), 0);
	assert_int_equal(count.written, 2);
	assert_int_equal(count.unaudited, 0);
	assert_string_equal(f->log[0], "restored scheduler mq-deadline");
	assert_string_equal(f->log[1], "restored nr_requests 64");
	/* nothing differs any more: a second restore writes nothing */
	assert_int_equal(tune_restore(&f->t, &snap, "restore", &count, &e), 0);
	assert_int_equal(count.written, 0);
	tune_snapshot_release(&snap);
}

/* tune_validate: tune_apply's checks and answers, no write and no audit. */
static void test_validate_writes_nothing(void **state)
{
	struct fx *f = *state;
	struct tune_item items[3], again[3];
	unsigned long gen = tune_generation(&f->t);
	bool rb;
	struct err e, ea;

	item(&items[0], "scheduler", "deadline");
	item(&items[1], "nr_requests", "32");
	item(&items[2], "iosched.fifo_batch", "8");
	assert_int_equal(tune_validate(&f->t, "loop0", items, 3, &e), 0);
	assert_true(items[0].aliased);
	assert_string_equal(items[0].canon, "mq-deadline");
	assert_string_equal(items[1].previous, "64");
	assert_false(items[2].deferred); /* mq-deadline is active already: checked now */
	assert_string_equal(items[2].previous, "16");
	item(&items[0], "scheduler", "kyber");
	item(&items[2], "iosched.read_lat_nsec", "8");
	assert_int_equal(tune_validate(&f->t, "loop0", items, 3, &e), 0);
	assert_true(items[2].deferred); /* kyber's attributes exist after the switch */
	assert_int_equal(f->n_log, 0);
	assert_true(tune_generation(&f->t) == gen);
	assert_string_equal(q(f, "scheduler"), "none [mq-deadline] kyber bfq\n");

	/* Refusals are the ones a real apply gives, with nothing written. */
	item(&items[0], "max_sectors_kb", "40000"); /* above max_hw_sectors_kb 32767 */
	memcpy(again, items, sizeof(items));
	assert_int_equal(tune_validate(&f->t, "loop0", items, 1, &e), -EINVAL);
	assert_int_equal(tune_apply(&f->t, "loop0", again, 1, "test", &rb, &ea), -EINVAL);
	assert_int_equal(e.code, ea.code);
	assert_string_equal(e.msg, ea.msg);
	assert_int_equal(tune_validate(&f->t, "loop0", items, 0, &e), -EINVAL);
	assert_string_equal(e.msg, "no parameters given");
	assert_int_equal(f->n_log, 0);
	assert_string_equal(q(f, "max_sectors_kb"), "1280\n");
}

/* A name the scheduler being switched to does not have is refused before any write, by the
 * dry run and the real PATCH alike: nothing written, no audit row (issue 23 item 12). */
static void test_switch_unknown_attr_refused(void **state)
{
	struct fx *f = *state;
	struct tune_item items[2];
	bool rb = false;
	struct err e;

	item(&items[0], "scheduler", "bfq");
	item(&items[1], "iosched.fifo_batch", "16");
	assert_int_equal(tune_validate(&f->t, "loop0", items, 2, &e), -ENOENT);
	assert_int_equal(e.code, ERR_UNKNOWN_PARAM);
	item(&items[0], "scheduler", "bfq");
	item(&items[1], "iosched.fifo_batch", "16");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 2, "test", &rb, &e), -ENOENT);
	assert_int_equal(e.code, ERR_UNKNOWN_PARAM);
	if (!strstr(e.msg, "iosched.fifo_batch") || !strstr(e.msg, "bfq") ||
	    !strstr(e.msg, "slice_idle"))
		fail_msg("message '%s' should name the parameter, bfq and its attributes", e.msg);
	assert_false(rb);
	assert_int_equal(f->n_log, 0);
	assert_string_equal(q(f, "scheduler"), "none [mq-deadline] kyber bfq\n");
	/* To none: no attributes at all. */
	item(&items[0], "scheduler", "none");
	item(&items[1], "iosched.fifo_batch", "16");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 2, "test", &rb, &e), -ENOENT);
	assert_int_equal(f->n_log, 0);
}

static void test_sysctl_set(void **state)
{
	struct fx *f = *state;
	struct tune_item it;
	struct err e;

	tu_write(f->root, "proc/sys/vm/dirty_background_ratio", "10\n", 0644);
	item(&it, "vm.dirty_background_ratio", "5");
	assert_int_equal(tune_sysctl_set(&f->t, &it, "test", &e), -EPERM);
	assert_string_equal(tu_read(f->root, "proc/sys/vm/dirty_background_ratio"), "10\n");
	f->fs.allow_sysctl = true;
	assert_int_equal(tune_sysctl_set(&f->t, &it, "test", &e), 0);
	assert_string_equal(it.previous, "10");
	assert_string_equal(it.applied, "5");
	item(&it, "vm.dirty_background_ratio", "05");
	assert_int_equal(tune_sysctl_set(&f->t, &it, "test", &e), -EINVAL);
	f->fs.allow_sysctl = false;
}

/* The value of name on loop0 as the agent reads it. */
static const char *val(struct fx *f, const char *name)
{
	static struct param p;
	struct err e;

	assert_int_equal(sysfs_param_read(&f->fs, "loop0", name, &p, &e), 0);
	return p.value;
}

/* No unaudited write: when the audit row cannot be recorded, the write is not made. */
static void test_audit_first(void **state)
{
	struct fx *f = *state;
	struct tune_item items[2], it;
	bool rb;
	struct err e;

	f->fail_at = 1;
	item(&items[0], "nr_requests", "128");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 1, "test", &rb, &e), -EAGAIN);
	assert_int_equal(e.code, ERR_AUDIT_UNAVAILABLE);
	assert_non_null(strstr(e.msg, "loop0 nr_requests"));
	assert_non_null(strstr(e.msg, "database or disk is full"));
	assert_int_equal(f->n_log, 0);
	assert_string_equal(q(f, "nr_requests"), "64\n");

	/* The second write's row fails: the first write is rolled back (made though it cannot
	 * be recorded: a refused rollback would leave the device half tuned). */
	f->fail_at = 2;
	item(&items[0], "scheduler", "kyber");
	item(&items[1], "nr_requests", "128");
	assert_int_equal(tune_apply(&f->t, "loop0", items, 2, "test", &rb, &e), -EAGAIN);
	assert_int_equal(e.code, ERR_AUDIT_UNAVAILABLE);
	assert_true(rb);
	assert_int_equal(f->n_log, 2);
	assert_string_equal(f->log[0], "ok scheduler kyber");
	assert_string_equal(f->log[1], "rolled_back scheduler mq-deadline unaudited");
	assert_string_equal(val(f, "scheduler"), "mq-deadline");
	assert_string_equal(val(f, "nr_requests"), "64");

	f->fail_at = f->n_intent + 1;
	f->fs.allow_sysctl = true;
	tu_write(f->root, "proc/sys/vm/dirty_ratio", "20\n", 0644);
	item(&it, "vm.dirty_ratio", "30");
	assert_int_equal(tune_sysctl_set(&f->t, &it, "test", &e), -EAGAIN);
	assert_int_equal(e.code, ERR_AUDIT_UNAVAILABLE);
	assert_string_equal(tu_read(f->root, "proc/sys/vm/dirty_ratio"), "20\n");
	f->fs.allow_sysctl = false;
}

/* A restore goes on when its rows cannot be recorded, and says how many writes have none. */
static void test_restore_unaudited(void **state)
{
	struct fx *f = *state;
	struct tune_snapshot snap;
	struct tune_restore_count count;
	struct tune_item it;
	bool rb;
	struct err e;

	assert_int_equal(tune_snapshot_take(&f->t, "loop0", &snap, &e), 0);
	item(&it, "nr_requests", "16");
	assert_int_equal(tune_apply(&f->t, "loop0", &it, 1, "test", &rb, &e), 0);
	f->fail_at = f->n_intent + 1;
	f->n_log = 0;
	assert_int_equal(tune_restore(&f->t, &snap, "restore", &count, &e), 0);
	assert_int_equal(count.written, 1);
	assert_int_equal(count.unaudited, 1);
	assert_string_equal(f->log[0], "restored nr_requests 64 unaudited");
	assert_string_equal(val(f, "nr_requests"), "64");
	tune_snapshot_release(&snap);
}

/* What a job's check asks of its device at once: what does not hold stops what depends on it;
 * use only when asked; the params judged as tune_validate judges them. */
static void test_device_report(void **state)
{
	struct fx *f = *state;
	struct tune_device_report d;
	struct tune_item items[1];

	tu_fake_device(f->root, "loop1", 0);
	tune_device_report(&f->t, &f->fs, "../loop0", true, NULL, 0, &d);
	assert_false(d.exists);
	tune_device_report(&f->t, &f->fs, "loop7", true, NULL, 0, &d);
	assert_false(d.exists);
	item(&items[0], "nr_requests", "-1");
	tune_device_report(&f->t, &f->fs, "loop1", true, items, 1, &d);
	assert_true(d.exists);
	assert_false(d.allowed);
	assert_false(d.in_use);
	assert_int_equal(d.params_rc, 0); /* not asked of a device that may not be touched */
	tu_write(f->root, "proc/self/mounts", "/dev/loop0 /mnt ext4 rw 0 0\n", 0444);
	tune_device_report(&f->t, &f->fs, "loop0", false, NULL, 0, &d);
	assert_true(d.exists && d.allowed);
	assert_false(d.in_use);
	tune_device_report(&f->t, &f->fs, "loop0", true, items, 1, &d);
	assert_true(d.in_use);
	assert_non_null(strstr(d.why, "loop0 is mounted"));
	assert_int_equal(d.params_rc, -EINVAL);
	assert_int_equal(d.params_err.code, ERR_INVALID_VALUE);
	item(&items[0], "nr_requests", "128");
	tune_device_report(&f->t, &f->fs, "loop0", true, items, 1, &d);
	assert_int_equal(d.params_rc, 0);
	assert_string_equal(items[0].previous, "64");
	assert_string_equal(q(f, "nr_requests"), "64\n"); /* judged, not written */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_scheduler_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nr_requests_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validation_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_allowlisted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_unknown_attr_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sysctl_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_unaudited, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
