/* test_keeper.c -- keeper.c and keep.c on a temp sysfs tree with a real database and a clock the
 * test turns: set all or nothing (rolled back across devices), drift reported or put back, a
 * device that appears, yielding to a session and applying after it, conflicts, delete with
 * restore, the application at start, and the before values; identity read once per device and
 * medium (keepid.c), matches by model through a fake source and by model, firmware, transport
 * and serial through the agent's own (identity.c on a temp tree). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "db.h"
#include "device/identity.h"
#include "profile/keepid.h"
#include "state/agent.h"
#include "state/keeper.h"
#include "store/store.h"
#include "testutil.h"

struct fx {
	char *root;
	char db[512];
	const char *allow[3];
	struct sysfs fs;
	struct tune t;
	struct store *store;
	struct keeper *k;
	char immutable[600]; /* a file made immutable, cleared in teardown */
};

static double clock_s = 1000.0;

static double test_now(void)
{
	return clock_s;
}

static int intent_cb(void *cls, struct tune_change *c, struct err *e)
{
	struct fx *f = cls;

	return store_change_intent(f->store, c, clock_s, e);
}

static void outcome_cb(void *cls, const struct tune_change *c)
{
	struct fx *f = cls;
	struct err e;

	assert_int_equal(store_change_outcome(f->store, c, clock_s, &e), 0);
}

/* The keeper on f's tree, its identity from src (NULL: none). */
static void keeper_up_ident(struct fx *f, const struct profile_ident_source *src)
{
	struct keeper_env env = {
		.store = f->store,
		.tune = &f->t,
		.fs = &f->fs,
		.now_s = test_now,
		.manual = true,
	};
	struct err e;

	err_clear(&e);
	if (src)
		env.ident = *src;
	if (keeper_start(&f->k, &env, &e))
		fail_msg("keeper_start: %s", e.msg);
}

static void keeper_up(struct fx *f)
{
	keeper_up_ident(f, NULL);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct tune_audit audit = { .intent = intent_cb, .outcome = outcome_cb, .cls = f };
	struct err e;

	f->root = tu_tmpdir();
	tu_fake_device(f->root, "loop0", 0);
	tu_fake_device(f->root, "loop1", 0);
	tu_fake_device(f->root, "vdb", 0);
	snprintf(f->db, sizeof(f->db), "%s/agent.db", f->root);
	assert_int_equal(store_open(&f->store, f->db, &e), 0);
	f->allow[0] = "loop0";
	f->allow[1] = "loop1";
	f->allow[2] = "loop7";
	f->fs.root = f->root;
	f->fs.allow_devices = f->allow;
	f->fs.n_allow_devices = 3;
	tune_init(&f->t, &f->fs, &audit);
	keeper_up(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->immutable[0]) {
		int fd = open(f->immutable, O_RDONLY), flags = 0;

		if (fd >= 0 && ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0)
			f->immutable[0] = '\0';
		if (fd >= 0)
			close(fd);
	}
	keeper_stop(f->k);
	store_close(f->store);
	tune_release(&f->t);
	tu_rmrf(f->root);
	free(f->root);
	free(f);
	return 0;
}

/* PUT a profile from a JSON-free description: devices "a,b", params "k=v,k=v". */
static int put(struct fx *f, const char *name, const char *devices, const char *params,
               bool enforce, bool dry_run, struct keeper_view *v, struct err *e)
{
	struct profile p;
	char buf[512], *tok, *save;
	bool created, rolled_back;
	int rc;

	profile_init(&p);
	snprintf(p.name, sizeof(p.name), "%s", name);
	p.enforce = enforce;
	snprintf(buf, sizeof(buf), "%s", devices);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		snprintf(p.match.devices[p.match.n_devices++], SYSFS_NAME_MAX, "%s", tok);
	snprintf(buf, sizeof(buf), "%s", params);
	p.params.items = calloc(TUNE_SET_MAX, sizeof(*p.params.items));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct tune_item *it = &p.params.items[p.params.n++];
		char *eq = strchr(tok, '=');

		*eq = '\0';
		snprintf(it->name, sizeof(it->name), "%s", tok);
		snprintf(it->requested, sizeof(it->requested), "%s", eq + 1);
	}
	err_clear(e);
	rc = keeper_put(f->k, &p, dry_run, "test", v, &created, &rolled_back, e);
	return rc;
}

static const struct keep_device *dev_of(const struct keeper_view *v, const char *dev)
{
	int i;

	for (i = 0; i < v->n_devices; i++)
		if (!strcmp(v->devices[i].device, dev))
			return &v->devices[i];
	fail_msg("no device %s in the view", dev);
	return NULL;
}

static enum keep_state state_of(struct fx *f, const char *name, const char *dev)
{
	struct keeper_view v;
	struct err e;
	enum keep_state s;

	assert_int_equal(keeper_get(f->k, name, &v, &e), 0);
	s = dev_of(&v, dev)->state;
	keeper_view_release(&v);
	return s;
}

/* A queue file's content without its newline. */
static const char *q(struct fx *f, const char *dev, const char *file)
{
	static char out[256];
	char rel[128];
	size_t n;

	snprintf(rel, sizeof(rel), "sys/block/%s/queue/%s", dev, file);
	snprintf(out, sizeof(out), "%s", tu_read(f->root, rel));
	n = strlen(out);
	if (n && out[n - 1] == '\n')
		out[n - 1] = '\0';
	return out;
}

static void q_set(struct fx *f, const char *dev, const char *file, const char *value)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/block/%s/queue/%s", dev, file);
	tu_write(f->root, rel, value, 0644);
}

static void test_set_applies_and_records_before(void **state)
{
	struct fx *f = *state;
	struct tune_snapshot *b;
	struct keeper_view v;
	struct err e;
	int n, i;

	assert_int_equal(
	        put(f, "db", "loop0", "read_ahead_kb=4096,nr_requests=32", true, false, &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_HELD);
	assert_string_equal(dev_of(&v, "loop0")->params[0].wanted, "4096");
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop0", "read_ahead_kb"), "4096");
	assert_string_equal(q(f, "loop0", "nr_requests"), "32");
	/* the values before the profile, for DELETE ?restore=true */
	assert_int_equal(store_profile_befores(f->store, "db", &b, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(b[0].device, "loop0");
	for (i = 0; i < b[0].n; i++)
		if (!strcmp(b[0].items[i].name, "read_ahead_kb"))
			assert_string_equal(b[0].items[i].previous, "128");
	store_snapshots_free(b, n);
}

static int n_changes(struct fx *f)
{
	struct change_rec *list;
	struct err e;
	int n;

	assert_int_equal(store_changes_list(f->store, NULL, 1000, &list, &n, &e), 0);
	free(list);
	return n;
}

static void test_bad_put_changes_nothing(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;

	assert_int_equal(put(f, "db", "loop0", "nr_requests=010", true, false, &v, &e), -EINVAL);
	assert_int_equal(e.code, ERR_INVALID_VALUE);
	assert_non_null(strstr(e.msg, "loop0"));
	assert_int_equal(put(f, "db", "loop0", "nosuch=1", true, false, &v, &e), -ENOENT);
	assert_int_equal(put(f, "db", "vdb", "nr_requests=32", true, false, &v, &e), -EPERM);
	assert_int_equal(e.code, ERR_DEVICE_NOT_ALLOWED);
	assert_int_equal(put(f, "db", "loop0", "iosched.fifo_batch=8", true, false, &v, &e),
	                 -EINVAL);
	assert_int_equal(put(f, "../x", "loop0", "nr_requests=32", true, false, &v, &e), -EINVAL);
	assert_string_equal(q(f, "loop0", "nr_requests"), "64");
	assert_int_equal(n_changes(f), 0);
	assert_int_equal(keeper_get(f->k, "db", &v, &e), -ENOENT);
}

static void test_dry_run_writes_nothing(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;

	assert_int_equal(put(f, "db", "loop0", "nr_requests=32", true, true, &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_PENDING);
	assert_string_equal(dev_of(&v, "loop0")->params[0].live, "64");
	assert_string_equal(dev_of(&v, "loop0")->params[0].wanted, "32");
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop0", "nr_requests"), "64");
	assert_int_equal(n_changes(f), 0);
	assert_int_equal(keeper_get(f->k, "db", &v, &e), -ENOENT);
}

/* A write the "kernel" refuses on the second device: the first is put back, nothing stored. */
static void test_put_rolls_back_across_devices(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;
	int fd, flags = FS_IMMUTABLE_FL;

	snprintf(f->immutable, sizeof(f->immutable), "%s/sys/block/loop1/queue/nr_requests",
	         f->root);
	fd = open(f->immutable, O_RDONLY);
	assert_true(fd >= 0);
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0) {
		close(fd);
		f->immutable[0] = '\0';
		skip(); /* tmpfs, or not root: no file the "kernel" refuses to write */
	}
	close(fd);
	assert_int_equal(put(f, "db", "loop0,loop1", "nr_requests=32,read_ahead_kb=512", true,
	                     false, &v, &e),
	                 -EPERM);
	assert_int_equal(e.code, ERR_KERNEL_REJECTED);
	assert_non_null(strstr(e.msg, "loop1"));
	assert_string_equal(q(f, "loop0", "nr_requests"), "64");
	assert_string_equal(q(f, "loop0", "read_ahead_kb"), "128");
	assert_string_equal(q(f, "loop1", "read_ahead_kb"), "128");
	assert_int_equal(keeper_get(f->k, "db", &v, &e), -ENOENT);
}

static void test_drift_reported_then_put_back(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;

	assert_int_equal(put(f, "db", "loop0", "nr_requests=32", false, false, &v, &e), 0);
	keeper_view_release(&v);
	q_set(f, "loop0", "nr_requests", "100\n");
	clock_s += 10;
	keeper_tick(f->k, true);
	assert_int_equal(state_of(f, "db", "loop0"), KEEP_DRIFTED);
	assert_string_equal(q(f, "loop0", "nr_requests"), "100");
	assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
	assert_true(dev_of(&v, "loop0")->params[0].drifted);
	assert_string_equal(dev_of(&v, "loop0")->params[0].live, "100");
	assert_true(dev_of(&v, "loop0")->params[0].drift_since == clock_s);
	keeper_view_release(&v);
	/* enforce: put back at the next comparison */
	assert_int_equal(put(f, "db", "loop0", "nr_requests=32", true, false, &v, &e), 0);
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop0", "nr_requests"), "32");
	q_set(f, "loop0", "nr_requests", "77\n");
	keeper_tick(f->k, false);
	assert_string_equal(q(f, "loop0", "nr_requests"), "77"); /* a scan does not compare */
	keeper_tick(f->k, true);
	assert_string_equal(q(f, "loop0", "nr_requests"), "32");
	assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_REAPPLIED);
	assert_int_equal(dev_of(&v, "loop0")->reapplied_count, 1);
	assert_string_equal(dev_of(&v, "loop0")->reapplied_what, "nr_requests 77 -> 32");
	keeper_view_release(&v);
}

/* Run sql on the fixture's database (a trigger that makes the state directory look full). */
static void db_sql(struct fx *f, const char *sql)
{
	struct db *d;
	struct err e;

	err_clear(&e);
	assert_int_equal(db_open(&d, f->db, &(struct db_kind){ "", ERR_STORE_ERROR, "", 0 }, &e),
	                 0);
	assert_int_equal(db_exec(d, sql, &e), 0);
	db_close(d);
}

/* A put-back of enforced drift that failed because the state directory was full (its audit row
 * could not be written) is tried again once there is room, without the live values changing
 * (issue 31 item 11): after check_s, then twice as long each time up to KEEP_RETRY_MAX_S. */
static void test_put_back_retried(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;
	int i;

	assert_int_equal(put(f, "db", "loop0", "nr_requests=32", true, false, &v, &e), 0);
	keeper_view_release(&v);
	db_sql(f, "CREATE TRIGGER full BEFORE INSERT ON changes "
	          "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;");
	q_set(f, "loop0", "nr_requests", "77\n");
	clock_s += 5;
	keeper_tick(f->k, true);
	assert_string_equal(q(f, "loop0", "nr_requests"), "77");
	assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_DRIFTED);
	assert_non_null(strstr(dev_of(&v, "loop0")->error,
	                       "cannot put back nr_requests 77 -> 32 (try 1; again in 5 s): "));
	assert_non_null(strstr(dev_of(&v, "loop0")->error, "disk is full"));
	keeper_view_release(&v);
	/* Still full: tried at each due time, the wait doubling (5, 10, 20, 40, then 60 s). */
	for (i = 2; i <= 6; i++) {
		clock_s += 1; /* before the retry is due: not tried */
		keeper_tick(f->k, true);
		assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
		assert_non_null(strstr(dev_of(&v, "loop0")->error, i == 2 ? "(try 1;" : "again"));
		keeper_view_release(&v);
		clock_s += 60;
		keeper_tick(f->k, true);
		assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
		{
			char want[64];

			snprintf(want, sizeof(want), "(try %d; again in %d s)", i,
			         (5 << (i - 1)) > 60 ? 60 : 5 << (i - 1));
			if (!strstr(dev_of(&v, "loop0")->error, want))
				fail_msg("try %d: '%s' lacks '%s'", i, dev_of(&v, "loop0")->error,
				         want);
		}
		keeper_view_release(&v);
	}
	/* Room comes back: put back at the next due try, the live value never having changed. */
	db_sql(f, "DROP TRIGGER full;");
	clock_s += 60;
	keeper_tick(f->k, true);
	assert_string_equal(q(f, "loop0", "nr_requests"), "32");
	assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_REAPPLIED);
	assert_string_equal(dev_of(&v, "loop0")->error, "");
	keeper_view_release(&v);
}

static void test_device_appears(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;

	assert_int_equal(put(f, "late", "loop7", "read_ahead_kb=768", true, false, &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop7")->state, KEEP_ABSENT);
	keeper_view_release(&v);
	tu_fake_device(f->root, "loop7", 0);
	keeper_tick(f->k, false);
	assert_string_equal(q(f, "loop7", "read_ahead_kb"), "768");
	assert_int_equal(state_of(f, "late", "loop7"), KEEP_HELD);
	/* a new medium (diskseq) on the same name gets it again */
	tu_write(f->root, "sys/block/loop7/diskseq", "5\n", 0444);
	keeper_tick(f->k, false);
	q_set(f, "loop7", "read_ahead_kb", "128\n");
	tu_write(f->root, "sys/block/loop7/diskseq", "6\n", 0444);
	keeper_tick(f->k, false);
	assert_string_equal(q(f, "loop7", "read_ahead_kb"), "768");
	/* without a medium it is absent */
	tu_write(f->root, "sys/block/loop7/size", "0\n", 0444);
	keeper_tick(f->k, false);
	assert_int_equal(state_of(f, "late", "loop7"), KEEP_ABSENT);
}

static void test_yields_to_a_session(void **state)
{
	struct fx *f = *state;
	struct session_rec s;
	struct tune_snapshot snap = { "loop0", 0, NULL };
	struct keeper_view v;
	struct err e;

	memset(&s, 0, sizeof(s));
	snprintf(s.device, sizeof(s.device), "loop0");
	s.created_at = clock_s;
	s.ttl_s = 60;
	s.expires_at = clock_s + 60;
	assert_int_equal(store_session_insert(f->store, &s, &snap, &e), 0);
	assert_int_equal(put(f, "db", "loop0", "nr_requests=32", true, false, &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_YIELDED);
	assert_non_null(strstr(dev_of(&v, "loop0")->owner, "session"));
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop0", "nr_requests"), "64");
	keeper_tick(f->k, true);
	assert_string_equal(q(f, "loop0", "nr_requests"), "64");
	assert_int_equal(store_session_end(f->store, s.id, "restored", clock_s, "closed", "ok", &e),
	                 0);
	keeper_tick(f->k, false);
	assert_string_equal(q(f, "loop0", "nr_requests"), "32");
	assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_HELD);
	assert_non_null(strstr(dev_of(&v, "loop0")->applied_by, "let go"));
	keeper_view_release(&v);
}

static void test_conflicts(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;

	assert_int_equal(put(f, "a", "loop0", "nr_requests=32", true, false, &v, &e), 0);
	keeper_view_release(&v);
	assert_int_equal(put(f, "b", "loop*", "nr_requests=48", true, false, &v, &e), -EBUSY);
	assert_int_equal(e.code, ERR_CONFLICT);
	assert_non_null(strstr(e.msg, "'a'"));
	/* other parameters of the same device are fine */
	assert_int_equal(put(f, "b", "loop*", "read_ahead_kb=256", true, false, &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_HELD);
	assert_int_equal(dev_of(&v, "loop1")->state, KEEP_HELD);
	keeper_view_release(&v);
	assert_int_equal(put(f, "d", "loop?", "nr_requests=8", true, false, &v, &e), -EBUSY);
	/* a device that appears later matching two patterns: the older profile holds it */
	assert_int_equal(put(f, "c", "loop7*", "nr_requests=16", true, false, &v, &e), 0);
	keeper_view_release(&v);
	clock_s += 1;
	assert_int_equal(put(f, "e", "lo?p7", "nr_requests=8", true, false, &v, &e), 0);
	keeper_view_release(&v);
	tu_fake_device(f->root, "loop7", 0);
	keeper_tick(f->k, true);
	assert_string_equal(q(f, "loop7", "nr_requests"), "16");
	assert_int_equal(state_of(f, "c", "loop7"), KEEP_HELD);
	assert_int_equal(state_of(f, "e", "loop7"), KEEP_CONFLICT);
}

static void test_delete_restores(void **state)
{
	struct fx *f = *state;
	struct keeper_restore *r;
	struct keeper_view v;
	struct err e;
	int n;

	assert_int_equal(
	        put(f, "db", "loop0", "nr_requests=32,read_ahead_kb=4096", true, false, &v, &e), 0);
	keeper_view_release(&v);
	assert_int_equal(keeper_delete(f->k, "db", true, "test", &v, &r, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_non_null(strstr(r[0].outcome, "ok (2 value(s) written)"));
	free(r);
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop0", "nr_requests"), "64");
	assert_string_equal(q(f, "loop0", "read_ahead_kb"), "128");
	assert_int_equal(keeper_delete(f->k, "db", false, "test", &v, &r, &n, &e), -ENOENT);
}

/* Open a session on dev straight in the database (its owner as the keeper sees it). */
static int64_t session_in(struct fx *f, const char *dev)
{
	struct tune_snapshot snap = { "", 0, NULL };
	struct session_rec s;
	struct err e;

	memset(&s, 0, sizeof(s));
	snprintf(s.device, sizeof(s.device), "%s", dev);
	snprintf(snap.device, sizeof(snap.device), "%s", dev);
	s.created_at = clock_s;
	s.ttl_s = 60;
	s.expires_at = clock_s + 60;
	assert_int_equal(store_session_insert(f->store, &s, &snap, &e), 0);
	return s.id;
}

/* DELETE ?restore=true while a session owns the device: the restore is owed, not dropped, and
 * made once the owner lets go, also across a restart; not for a parameter another kept profile
 * holds there by then (issue 31 item 19). */
static void test_delete_restore_owed(void **state)
{
	struct fx *f = *state;
	struct keeper_restore *r;
	struct keeper_view v;
	struct err e;
	int64_t sid;
	int n;

	assert_int_equal(
	        put(f, "db", "loop0", "nr_requests=32,read_ahead_kb=4096", true, false, &v, &e), 0);
	keeper_view_release(&v);
	sid = session_in(f, "loop0");
	assert_int_equal(keeper_delete(f->k, "db", true, "test", &v, &r, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].outcome, "owed: session 1 owns it; put back when it lets go");
	free(r);
	keeper_view_release(&v);
	keeper_tick(f->k, true);
	assert_string_equal(q(f, "loop0", "nr_requests"), "32"); /* owned still */
	assert_int_equal(store_session_end(f->store, sid, "closed", clock_s, "closed", "n/a", &e),
	                 0);
	keeper_tick(f->k, false);
	assert_string_equal(q(f, "loop0", "nr_requests"), "64");
	assert_string_equal(q(f, "loop0", "read_ahead_kb"), "128");

	/* Across a restart, and a profile set meanwhile keeps what it holds. */
	assert_int_equal(
	        put(f, "db", "loop1", "nr_requests=32,read_ahead_kb=4096", true, false, &v, &e), 0);
	keeper_view_release(&v);
	sid = session_in(f, "loop1");
	assert_int_equal(keeper_delete(f->k, "db", true, "test", &v, &r, &n, &e), 0);
	assert_non_null(strstr(r[0].outcome, "owed"));
	free(r);
	keeper_view_release(&v);
	keeper_stop(f->k);
	keeper_up(f);
	assert_string_equal(q(f, "loop1", "nr_requests"), "32");
	assert_int_equal(store_session_end(f->store, sid, "closed", clock_s, "closed", "n/a", &e),
	                 0);
	assert_int_equal(put(f, "ra", "loop1", "read_ahead_kb=2048", true, false, &v, &e), 0);
	keeper_view_release(&v);
	keeper_tick(f->k, false);
	assert_string_equal(q(f, "loop1", "nr_requests"), "64");
	assert_string_equal(q(f, "loop1", "read_ahead_kb"), "2048");
	keeper_tick(f->k, false); /* paid once */
	assert_string_equal(q(f, "loop1", "read_ahead_kb"), "2048");
}

static void test_applied_at_start(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;

	assert_int_equal(put(f, "db", "loop0", "nr_requests=32", true, false, &v, &e), 0);
	keeper_view_release(&v);
	keeper_stop(f->k);
	q_set(f, "loop0", "nr_requests", "64\n");
	keeper_up(f);
	assert_string_equal(q(f, "loop0", "nr_requests"), "32");
	assert_int_equal(keeper_get(f->k, "db", &v, &e), 0);
	assert_string_equal(dev_of(&v, "loop0")->applied_by, "at agent start");
	keeper_view_release(&v);
}

static void test_not_allowed_is_not_written(void **state)
{
	struct fx *f = *state;
	struct keeper_view v;
	struct err e;

	assert_int_equal(put(f, "wide", "vd*", "nr_requests=32", true, false, &v, &e), 0);
	assert_int_equal(dev_of(&v, "vdb")->state, KEEP_NOT_ALLOWED);
	keeper_view_release(&v);
	keeper_tick(f->k, true);
	assert_string_equal(q(f, "vdb", "nr_requests"), "64");
}

/* PUT profile name matching by identity only, spec "model=A;firmware=B|C" (a field's values
 * split by '|'), holding param=value. */
static int put_by(struct fx *f, const char *name, const char *spec, const char *param,
                  const char *value, struct keeper_view *v, struct err *e)
{
	struct profile p;
	char buf[512], *part, *tok, *save, *save2, *eq;
	bool created, rolled_back;
	int k;

	profile_init(&p);
	snprintf(p.name, sizeof(p.name), "%s", name);
	p.enforce = true;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (part = strtok_r(buf, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
		eq = strchr(part, '=');
		*eq = '\0';
		for (k = 0; k < IDENT_COUNT && strcmp(profile_ident_names[k], part); k++)
			;
		assert_true(k < IDENT_COUNT);
		for (tok = strtok_r(eq + 1, "|", &save2); tok; tok = strtok_r(NULL, "|", &save2))
			snprintf(p.match.values[k][p.match.n_values[k]++], PROFILE_VALUE_MAX, "%s",
			         tok);
	}
	p.params.items = calloc(TUNE_SET_MAX, sizeof(*p.params.items));
	p.params.n = 1;
	snprintf(p.params.items[0].name, sizeof(p.params.items[0].name), "%s", param);
	snprintf(p.params.items[0].requested, sizeof(p.params.items[0].requested), "%s", value);
	err_clear(e);
	return keeper_put(f->k, &p, false, "test", v, &created, &rolled_back, e);
}

/* A fake identity source: loop0 and vdb are model M1, loop1 M2, nobody reports firmware;
 * it counts what it is asked. */
static int fake_reads;

static int fake_ident(void *cls, const char *dev, enum profile_ident field, char *out, size_t len)
{
	(void)cls;
	fake_reads++;
	if (field != IDENT_MODEL)
		return -ENOENT;
	snprintf(out, len, "%s", !strcmp(dev, "loop1") ? "M2" : "M1");
	return 0;
}

/* keepid: a field is read once per device and medium; a new diskseq, a lost medium or no
 * diskseq at all reads again; absent fields are remembered as absent. */
static void test_identity_read_once(void **state)
{
	struct profile_ident_source fake = { fake_ident, NULL }, src;
	struct block_seen seen[2] = { { "loop0", 1 << 20, 3, true },
		                      { "loop1", 1 << 20, 0, false } };
	struct keepid c;
	char v[PROFILE_VALUE_MAX], tiny[2];

	(void)state;
	keepid_init(&c, NULL);
	assert_null(keepid_source(&c).read);
	keepid_release(&c);
	keepid_init(&c, &fake);
	src = keepid_source(&c);
	fake_reads = 0;
	keepid_rescan(&c, seen, 2);
	assert_int_equal(src.read(src.cls, "loop0", IDENT_MODEL, v, sizeof(v)), 0);
	assert_string_equal(v, "M1");
	assert_int_equal(src.read(src.cls, "loop0", IDENT_MODEL, v, sizeof(v)), 0);
	assert_int_equal(src.read(src.cls, "loop0", IDENT_FIRMWARE, v, sizeof(v)), -ENOENT);
	assert_int_equal(src.read(src.cls, "loop0", IDENT_FIRMWARE, v, sizeof(v)), -ENOENT);
	assert_int_equal(src.read(src.cls, "loop1", IDENT_MODEL, v, sizeof(v)), 0);
	assert_string_equal(v, "M2");
	assert_int_equal(fake_reads, 3);
	assert_int_equal(src.read(src.cls, "loop0", IDENT_MODEL, tiny, sizeof(tiny)),
	                 -ENAMETOOLONG);
	/* The same scan again: loop0 (same diskseq) is remembered, loop1 (none) is read again. */
	keepid_rescan(&c, seen, 2);
	assert_int_equal(src.read(src.cls, "loop0", IDENT_MODEL, v, sizeof(v)), 0);
	assert_int_equal(src.read(src.cls, "loop1", IDENT_MODEL, v, sizeof(v)), 0);
	assert_int_equal(fake_reads, 4);
	/* A new medium in loop0, then none. */
	seen[0].seq = 4;
	keepid_rescan(&c, seen, 2);
	assert_int_equal(src.read(src.cls, "loop0", IDENT_MODEL, v, sizeof(v)), 0);
	assert_int_equal(fake_reads, 5);
	seen[0].size_bytes = 0;
	keepid_rescan(&c, seen, 2);
	assert_int_equal(src.read(src.cls, "loop0", IDENT_MODEL, v, sizeof(v)), 0);
	assert_int_equal(fake_reads, 6);
	/* Gone from the scan. */
	keepid_rescan(&c, seen, 1);
	assert_int_equal(src.read(src.cls, "loop1", IDENT_MODEL, v, sizeof(v)), 0);
	assert_int_equal(fake_reads, 7);
	assert_int_equal((int)c.reads, 7);
	keepid_release(&c);
}

/* A profile that matches by model, through the keeper: the matching allowed device gets it,
 * the other model is not its business, the one outside --allow-device is not_allowed; scans
 * read each device's model once, not once per scan. */
static void test_match_by_identity(void **state)
{
	struct fx *f = *state;
	struct profile_ident_source fake = { fake_ident, NULL };
	struct keeper_view v;
	struct err e;
	int i, after_put;

	keeper_stop(f->k);
	tu_write(f->root, "sys/block/loop0/diskseq", "11\n", 0444);
	tu_write(f->root, "sys/block/loop1/diskseq", "12\n", 0444);
	tu_write(f->root, "sys/block/vdb/diskseq", "13\n", 0444);
	fake_reads = 0;
	keeper_up_ident(f, &fake);
	assert_int_equal(put_by(f, "m1", "model=M1", "read_ahead_kb", "512", &v, &e), 0);
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_HELD);
	for (i = 0; i < v.n_devices; i++)
		assert_string_not_equal(v.devices[i].device, "loop1");
	assert_int_equal(dev_of(&v, "vdb")->state, KEEP_NOT_ALLOWED);
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop0", "read_ahead_kb"), "512");
	assert_string_equal(q(f, "loop1", "read_ahead_kb"), "128");
	assert_string_equal(q(f, "vdb", "read_ahead_kb"), "128");
	after_put = fake_reads;
	assert_true(after_put >= 3 && after_put <= 6);
	for (i = 0; i < 10; i++)
		keeper_tick(f->k, i % 2);
	assert_int_equal(fake_reads, after_put);
	/* A new medium in loop1 is asked once more (still M2: not matched). */
	tu_write(f->root, "sys/block/loop1/diskseq", "14\n", 0444);
	keeper_tick(f->k, false);
	assert_int_equal(fake_reads, after_put + 1);
	assert_int_equal(state_of(f, "m1", "loop0"), KEEP_HELD);
}

/* The agent's identity source on a temp tree laid out as the kernel lays out an NVMe disk
 * (loop1 here) and a loop device (loop0): profiles that match by model and firmware, by
 * transport, and by serial (hashed with --hide-serial, as GET /devices shows it). */
static void test_match_by_real_identity(void **state)
{
	struct fx *f = *state;
	struct agent a;
	struct keeper_env env;
	struct keeper_view v;
	char hashed[64], spec[128];
	struct err e;
	int i;

	keeper_stop(f->k);
	tu_write(f->root, "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/model",
	         "Samsung SSD 980 PRO 1TB                 \n", 0444);
	tu_write(f->root, "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/firmware_rev",
	         "5B2QGXA7\n", 0444);
	tu_write(f->root, "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/serial",
	         "S5GXNF0R123456      \n", 0444);
	tu_write(f->root, "sys/class/nvme/.keep", "", 0444);
	tu_link(f->root, "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/subsystem",
	        "../../../../../class/nvme");
	tu_link(f->root, "sys/block/loop1/device",
	        "../../devices/pci0000:00/0000:00:04.0/nvme/nvme0");
	tu_write(f->root, "sys/block/loop0/loop/backing_file", "/tmp/a.img\n", 0444);
	memset(&a, 0, sizeof(a));
	a.fs = f->fs;
	env = agent_keeper_env(&a);
	assert_ptr_equal(env.ident.read, agent_ident_read);
	keeper_up_ident(f, &env.ident);

	/* By model and firmware: the NVMe disk only. */
	assert_int_equal(put_by(f, "pro980",
	                        "model=Samsung SSD 980 PRO 1TB;firmware=4B2QGXA7|5B2QGXA7",
	                        "read_ahead_kb", "512", &v, &e),
	                 0);
	assert_int_equal(v.n_devices, 1);
	assert_string_equal(v.devices[0].device, "loop1");
	assert_int_equal(v.devices[0].state, KEEP_HELD);
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop1", "read_ahead_kb"), "512");
	assert_string_equal(q(f, "loop0", "read_ahead_kb"), "128");

	/* By transport: the loop device (and vdb, whose transport is unknown, is not matched). */
	assert_int_equal(put_by(f, "loops", "transport=loop", "nr_requests", "32", &v, &e), 0);
	for (i = 0; i < v.n_devices; i++)
		assert_string_not_equal(v.devices[i].device, "loop1");
	assert_int_equal(dev_of(&v, "loop0")->state, KEEP_HELD);
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop0", "nr_requests"), "32");
	assert_string_equal(q(f, "loop1", "nr_requests"), "64");

	/* By serial, with --hide-serial: the hashed form matches, the plain one does not. */
	keeper_stop(f->k);
	a.cfg.hide_serial = true;
	env = agent_keeper_env(&a);
	keeper_up_ident(f, &env.ident);
	identity_serial_hash("S5GXNF0R123456", hashed, sizeof(hashed));
	assert_int_equal(put_by(f, "byserial", "serial=S5GXNF0R123456", "nomerges", "2", &v, &e),
	                 0);
	assert_int_equal(v.n_devices, 0);
	keeper_view_release(&v);
	snprintf(spec, sizeof(spec), "serial=%s", hashed);
	assert_int_equal(put_by(f, "byserial", spec, "nomerges", "2", &v, &e), 0);
	assert_int_equal(v.n_devices, 1);
	assert_string_equal(v.devices[0].device, "loop1");
	keeper_view_release(&v);
	assert_string_equal(q(f, "loop1", "nomerges"), "2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_set_applies_and_records_before, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_bad_put_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_rolls_back_across_devices, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(test_drift_reported_then_put_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_back_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete_restore_owed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_appears, setup, teardown),
		cmocka_unit_test_setup_teardown(test_yields_to_a_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_applied_at_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_allowed_is_not_written, setup, teardown),
		cmocka_unit_test(test_identity_read_once),
		cmocka_unit_test_setup_teardown(test_match_by_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match_by_real_identity, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) || tu_leaked();
}
