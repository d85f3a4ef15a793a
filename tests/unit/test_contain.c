/* test_contain.c -- contain.c: the cgroup path rules, and a pass whose engine starts setsid()
 * workers, "crashes", and is cleaned up by a second agent from the records alone, in the /proc
 * mode and (where this process may make cgroups) the cgroup mode. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "job/contain.h"
#include "job/proc.h"
#include "job/ptree.h"
#include "testutil.h"
#include "timeutil.h"

static void test_mode_parse(void **state)
{
	enum contain_mode m = CONTAIN_PROC;

	assert_int_equal(contain_mode_parse("auto", &m), 0);
	assert_int_equal(m, CONTAIN_AUTO);
	assert_int_equal(contain_mode_parse("cgroup", &m), 0);
	assert_int_equal(m, CONTAIN_CGROUP);
	assert_int_equal(contain_mode_parse("proc", &m), 0);
	assert_int_equal(m, CONTAIN_PROC);
	assert_int_equal(contain_mode_parse("cgroups", &m), -EINVAL);
	assert_int_equal(contain_mode_parse("", &m), -EINVAL);
	assert_int_equal(contain_mode_parse(NULL, &m), -EINVAL);
}

static void test_cgroup_path_rules(void **state)
{
	/* off the cgroup2 mount (or on a mount that merely starts the same), relative, with
	 * dot segments or doubled slashes: refused whatever their end */
	static const char *const refused[] = {
		"/tmp/fleettune/0123456789abcdef/job-12",
		"/sys/fs/cgroup/unified2/fleettune/0123456789abcdef/job-12",
		"sys/fs/cgroup/unified/fleettune/0123456789abcdef/job-12",
		"/sys/fs/cgroup/unified/../../../fleettune/0123456789abcdef/job-12",
		"/sys/fs/cgroup/unified/./fleettune/0123456789abcdef/job-12",
		"/sys/fs/cgroup/unified//fleettune/0123456789abcdef/job-12",
	};
	const char *mnt = "/sys/fs/cgroup/unified", *id = "0123456789abcdef";
	char p[256], small[6];
	size_t i;

	assert_int_equal(contain_cgroup_path("/sys/fs/cgroup/unified/fleettune/0123456789abcdef",
	                                     12, p, sizeof(p)),
	                 0);
	assert_string_equal(p, "/sys/fs/cgroup/unified/fleettune/0123456789abcdef/job-12");
	assert_int_equal(contain_cgroup_path("/x", 12, small, sizeof(small)), -ENAMETOOLONG);
	/* the agent in the root cgroup, and in a service cgroup */
	assert_true(contain_cgroup_path_ok(p, mnt, id, 12));
	assert_true(contain_cgroup_path_ok("/sys/fs/cgroup/unified/system.slice/a.service/"
	                                   "fleettune/0123456789abcdef/job-12",
	                                   mnt, id, 12));
	/* another job, another agent, a prefix of the job id */
	assert_false(contain_cgroup_path_ok(p, mnt, id, 1));
	assert_false(contain_cgroup_path_ok(p, mnt, id, 123));
	assert_false(contain_cgroup_path_ok(p, mnt, "fedcba9876543210", 12));
	assert_false(contain_cgroup_path_ok(
	        "/sys/fs/cgroup/unified/fleettune/0123456789abcdef/job-123", mnt, id, 12));
	assert_false(contain_cgroup_path_ok(p, "", id, 12)); /* no cgroup2 mount */
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (contain_cgroup_path_ok(refused[i], mnt, id, 12))
			fail_msg("accepted '%s'", refused[i]);
}

struct fx {
	char *dir;
	struct contain c;
};

/* Whether path is gone (and not merely unreadable). */
static bool gone(const char *path)
{
	return access(path, F_OK) < 0 && errno == ENOENT;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = tu_tmpdir();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* The engine of a pass: a shell that starts two setsid() sleeps and waits, like fio and its
 * workers. */
static void pass_start(struct fx *f, struct contain_pass *cp, struct proc *p, int64_t job_id)
{
	char *argv[] = { "sh", "-c", "setsid sleep 60 & setsid sleep 60 & echo started; wait",
		         NULL };
	struct err e;
	double t0 = time_mono_s();

	assert_int_equal(contain_pass_begin(&f->c, job_id, cp, &e), 0);
	assert_int_equal(proc_spawn_in(p, argv, NULL, cp, &e), 0);
	while (!strstr(p->out.data, "started") || contain_pass_alive(cp) < 3) {
		assert_true(proc_poll(p, 20) >= 0);
		if (time_mono_s() - t0 > 10)
			fail_msg("the pass did not start its 3 processes");
	}
}

static char *record_text(struct fx *f, int64_t job_id)
{
	char path[512];
	struct buf b = BUF_INIT;

	snprintf(path, sizeof(path), "%s/contain/job-%lld", f->dir, (long long)job_id);
	if (buf_read_file(&b, path, 1 << 20)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* The agent "crashes" mid-pass (its struct contain_pass is simply forgotten); a second one
 * on the same state directory kills all three processes from the record. */
static void crash_and_recover(struct fx *f, enum contain_mode mode)
{
	struct contain_pass cp;
	struct contain again;
	struct proc p;
	struct err e;
	pid_t leader;
	char *rec;

	pass_start(f, &cp, &p, 7);
	leader = p.pid;
	rec = record_text(f, 7);
	assert_non_null(rec);
	assert_non_null(strstr(rec, "job 7\n"));
	if (mode == CONTAIN_CGROUP) {
		assert_non_null(strstr(rec, "cgroup "));
		assert_int_equal(contain_pass_alive(&cp), 3);
	} else {
		/* the leader and both workers, recorded as they appeared */
		int lines = 0;
		const char *s;

		for (s = rec; (s = strstr(s, "pid ")); s++)
			lines++;
		assert_int_equal(lines, 3);
	}
	free(rec);
	assert_int_equal(contain_init(&again, NULL, f->dir, mode, &e), 0);
	assert_int_equal(contain_recover(&again), 3);
	if (mode == CONTAIN_CGROUP) /* the job's cgroup went, the base in use stays */
		assert_int_equal(access(again.base, F_OK), 0);
	assert_null(record_text(f, 7));
	assert_int_equal(contain_pass_alive(&cp), 0);
	/* the first "agent" still reaps its child; nothing is left to end */
	proc_release(&p);
	assert_int_equal(kill(leader, 0) < 0 && errno == ESRCH, 1);
	contain_pass_end(&cp);
	assert_int_equal(contain_recover(&again), 0);
}

/* The engine is in the pass's cgroup from its first instruction (made in it, or joined before
 * exec): what it reads of /proc/self/cgroup is that cgroup, below the cgroup2 mount. */
static void runs_in_cgroup(struct fx *f)
{
	char *argv[] = { "cat", "/proc/self/cgroup", NULL };
	struct contain_pass cp;
	const char *rel;
	struct proc p;
	struct err e;
	int rc;

	assert_int_equal(contain_pass_begin(&f->c, 9, &cp, &e), 0);
	assert_true(contain_pass_cgroup_fd(&cp) >= 0);
	assert_int_equal(proc_spawn_in(&p, argv, NULL, &cp, &e), 0);
	while ((rc = proc_poll(&p, 20)) == 0)
		;
	assert_int_equal(rc, 1);
	assert_int_equal(p.exit_code, 0);
	rel = strstr(cp.cgroup, "/fleettune/");
	assert_non_null(rel);
	assert_non_null(strstr(p.out.data, rel));
	assert_non_null(strstr(p.out.data, "/job-9\n"));
	proc_release(&p);
	contain_pass_end(&cp);
}

/* A pass ended on purpose: proc_terminate's SIGTERM misses the setsid() workers, the
 * containment gets them; the record goes with them. */
static void terminate_and_end(struct fx *f)
{
	struct contain_pass cp;
	struct proc p;

	pass_start(f, &cp, &p, 8);
	assert_int_equal(proc_terminate(&p, 0.5), 0);
	assert_int_equal(contain_pass_alive(&cp), 0);
	proc_release(&p);
	contain_pass_end(&cp);
	assert_null(record_text(f, 8));
}

static void test_proc_mode(void **state)
{
	struct fx *f = *state;
	struct err e;

	assert_int_equal(contain_init(&f->c, NULL, f->dir, CONTAIN_PROC, &e), 0);
	assert_int_equal(f->c.mode, CONTAIN_PROC);
	crash_and_recover(f, CONTAIN_PROC);
	terminate_and_end(f);
}

static void test_cgroup_mode(void **state)
{
	struct fx *f = *state;
	char path[1200];
	struct err e;

	if (contain_init(&f->c, NULL, f->dir, CONTAIN_CGROUP, &e))
		skip(); /* not root, no cgroup2, or a read-only cgroupfs */
	assert_int_equal(f->c.mode, CONTAIN_CGROUP);
	crash_and_recover(f, CONTAIN_CGROUP);
	terminate_and_end(f);
	runs_in_cgroup(f);
	snprintf(path, sizeof(path), "%s/job-7", f->c.base);
	assert_true(gone(path));
	/* The passes removed their own cgroups only: the base stays for the next pass (one
	 * mkdir), until contain_fini removes it. */
	assert_int_equal(access(f->c.base, F_OK), 0);
	contain_fini(&f->c);
	assert_true(gone(f->c.base));
}

/* A base removed under the agent (by hand, by a tool) is made again by the next pass. */
static void test_cgroup_base_remade(void **state)
{
	struct fx *f = *state;
	struct contain_pass cp;
	char path[1200];
	struct err e;

	if (contain_init(&f->c, NULL, f->dir, CONTAIN_CGROUP, &e))
		skip();
	assert_int_equal(rmdir(f->c.base), 0);
	assert_int_equal(contain_pass_begin(&f->c, 9, &cp, &e), 0);
	snprintf(path, sizeof(path), "%s/job-9", f->c.base);
	assert_int_equal(access(path, F_OK), 0);
	contain_pass_end(&cp);
	assert_true(gone(path));
	contain_fini(&f->c);
	assert_true(gone(f->c.base));
}

/* A recorded pid now held by another process (its start time differs), or recorded before
 * a reboot, is left alone. */
static void test_recover_spares_reused_pids(void **state)
{
	struct fx *f = *state;
	struct ptree_stat st;
	char path[512];
	FILE *out;
	struct err e;
	pid_t pid;

	assert_int_equal(contain_init(&f->c, NULL, f->dir, CONTAIN_PROC, &e), 0);
	pid = fork();
	if (pid == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	usleep(100000);
	assert_int_equal(ptree_stat_read(pid, &st), 0);
	snprintf(path, sizeof(path), "%s/contain/job-3", f->dir);
	out = fopen(path, "w");
	fprintf(out, "job 3\nboot %s\npid %d %llu\n", f->c.boot_id, (int)pid,
	        (unsigned long long)st.start + 5);
	fclose(out);
	snprintf(path, sizeof(path), "%s/contain/job-4", f->dir);
	out = fopen(path, "w");
	fprintf(out, "job 4\nboot another-boot\npid %d %llu\n", (int)pid,
	        (unsigned long long)st.start);
	fclose(out);
	assert_int_equal(contain_recover(&f->c), 0);
	assert_int_equal(kill(pid, 0), 0); /* still there */
	assert_null(record_text(f, 3));
	assert_null(record_text(f, 4));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The first child of pid (from /proc/PID/task/PID/children), 0 for none, -1 where the kernel
 * has no such file. */
static pid_t child_of(pid_t pid)
{
	char path[64], line[64] = "";
	FILE *in;
	int child = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	in = fopen(path, "r");
	if (!in)
		return -1;
	if (fgets(line, sizeof(line), in))
		sscanf(line, "%d", &child);
	fclose(in);
	return child;
}

/*
 * The agent is SIGKILLed while its engine waits at the gate (forked, not yet recorded: the
 * record's fdatasync here, a write that never ends in the test). The child must see the
 * parent's death, exit without running anything, and hold none of the agent's descriptors
 * meanwhile: a restarted agent must be able to take the state directory's lock (an O_CLOEXEC
 * flock, as statelock.c's) at once. A child holding its own copy of the gate's write end
 * waited forever, and kept the lock (it_contain: "state directory ... is in use").
 */
static void test_parent_killed_at_gate(void **state)
{
	struct fx *f = *state;
	char lock[512], marker[512];
	pid_t agent, engine = 0;
	double t0;
	int fd, status, got = 0;
	bool free_lock;

	snprintf(lock, sizeof(lock), "%s/lock", f->dir);
	snprintf(marker, sizeof(marker), "%s/ran", f->dir);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	agent = fork();
	if (agent == 0) {
		char *argv[] = { "touch", marker, NULL };
		struct contain_pass cp;
		struct proc p;
		struct err e;
		char fill[4096];
		int full[2];

		memset(fill, 'x', sizeof(fill));
		fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0 || flock(fd, LOCK_EX) < 0 || pipe2(full, O_CLOEXEC | O_NONBLOCK) < 0)
			_exit(2);
		while (write(full[1], fill, sizeof(fill)) > 0)
			;
		fcntl(full[1], F_SETFL, 0); /* the next write blocks: nobody reads */
		if (contain_init(&f->c, NULL, f->dir, CONTAIN_PROC, &e) ||
		    contain_pass_begin(&f->c, 5, &cp, &e))
			_exit(3);
		close(cp.record_fd);
		cp.record_fd = full[1];
		proc_spawn_in(&p, argv, NULL, &cp, &e);
		_exit(4); /* not reached: admit's write blocks */
	}
	assert_true(agent > 0);
	for (t0 = time_mono_s(); time_mono_s() - t0 < 10; usleep(5000)) {
		engine = child_of(agent);
		if (engine < 0 || (engine > 0 && tu_proc_state(agent) == 'S'))
			break;
	}
	kill(agent, SIGKILL);
	waitpid(agent, NULL, 0);
	if (engine < 0) {
		prctl(PR_SET_CHILD_SUBREAPER, 0);
		skip(); /* no /proc/PID/task/PID/children */
	}
	assert_true(engine > 0);
	for (t0 = time_mono_s(); time_mono_s() - t0 < 2; usleep(5000))
		if ((got = waitpid(engine, &status, WNOHANG)) == engine)
			break;
	fd = open(lock, O_RDWR | O_CLOEXEC);
	free_lock = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
	if (fd >= 0)
		close(fd);
	if (got != engine) {
		kill(engine, SIGKILL);
		waitpid(engine, NULL, 0);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	if (got != engine)
		fail_msg(
		        "the engine still waits at the gate 2 s after the agent died (the lock %s)",
		        free_lock ? "free" : "held by it");
	assert_true(free_lock);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 127);
	assert_true(gone(marker));
}

/* A pass that never began is harmless to end, kill or count. */
static void test_zeroed_pass(void **state)
{
	struct contain_pass cp;
	int n = 5;

	memset(&cp, 0, sizeof(cp));
	assert_int_equal(contain_pass_alive(&cp), 0);
	assert_int_equal(contain_pass_kill(&cp, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(contain_pass_join_fd(&cp), -1);
	contain_pass_track(&cp);
	contain_pass_end(&cp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_parse),
		cmocka_unit_test(test_cgroup_path_rules),
		cmocka_unit_test_setup_teardown(test_proc_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_base_remade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_spares_reused_pids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parent_killed_at_gate, setup, teardown),
		cmocka_unit_test(test_zeroed_pass),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
