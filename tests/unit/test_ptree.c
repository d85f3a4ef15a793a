/* test_ptree.c -- ptree.c on real processes: stat parsing, trees of setsid() children, orphans
 * of a dead parent, and a reused pid (another start time) that must never be signalled. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptree.h"
#include "testutil.h"

static void test_stat_parse(void **state)
{
	struct ptree_stat st;

	/* Linux 6.18, a comm with spaces and parentheses (field 2 is cut at the last ')') */
	assert_int_equal(ptree_stat_parse("4242 (fio (a) b)) S 4200 4242 4242 0 -1 4194560 1234 0 "
	                                  "0 0 12 34 0 0 20 0 1 0 797208 123456789 1234 "
	                                  "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0",
	                                  &st),
	                 0);
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 4200);
	assert_int_equal(st.pgrp, 4242);
	assert_int_equal(st.start, 797208);
	assert_int_equal(
	        ptree_stat_parse("1 (init) Z 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 9 0", &st), 0);
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.start, 9);
	assert_int_equal(ptree_stat_parse("1 (init) S 0 1 1", &st), -EINVAL);
	assert_int_equal(ptree_stat_parse("no parenthesis", &st), -EINVAL);
	assert_int_equal(ptree_stat_read(getpid(), &st), 0);
	assert_int_equal(st.ppid, getppid());
	assert_true(st.start > 0);
}

/* sh -c script as a child; returns its pid and identity once it printed a line. */
static pid_t spawn_sh(const char *script, struct pident *id)
{
	struct ptree_stat st;
	int fds[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	assert_true(pid > 0);
	assert_int_equal(read(fds[0], &c, 1), 1); /* the script is running */
	close(fds[0]);
	assert_int_equal(ptree_stat_read(pid, &st), 0);
	*id = (struct pident){ pid, st.start };
	return pid;
}

static int alive(pid_t pid)
{
	struct ptree_stat st;

	return ptree_stat_read(pid, &st) == 0 && st.state != 'Z';
}

/* A recorded pid whose start time differs is another process: never found, never killed. */
static void test_reused_pid_is_spared(void **state)
{
	struct pident id, other, *out = NULL;
	pid_t pid = spawn_sh("echo up; exec sleep 60", &id);
	int n = -1;

	other = (struct pident){ pid, id.start + 1 };
	assert_int_equal(ptree_collect(&other, 1, &out), 0);
	assert_null(out);
	assert_int_equal(ptree_kill(&other, 1, 2.0, &n), 0);
	assert_int_equal(n, 0);
	assert_true(alive(pid));
	assert_int_equal(kill(pid, 0), 0);
	/* the right identity: found and killed */
	assert_int_equal(ptree_collect(&id, 1, &out), 1);
	assert_int_equal(out[0].pid, pid);
	free(out);
	assert_int_equal(ptree_kill(&id, 1, 5.0, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* The root's setsid() children (fio's workers) belong to the tree: found, all killed. */
static void test_tree_with_setsid_children(void **state)
{
	struct pident id, *out = NULL;
	pid_t pid = spawn_sh("setsid sleep 60 & setsid sleep 60 & sleep 0.3; echo up; wait", &id);
	int n = -1, status;

	assert_int_equal(ptree_collect(&id, 1, &out), 3);
	free(out);
	assert_int_equal(ptree_kill(&id, 1, 5.0, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(ptree_collect(&id, 1, &out), 0);
}

/* Once recorded, children outlive their parent (reparented away): still killed. */
static void test_orphans_of_a_dead_parent(void **state)
{
	struct pident id, *tree = NULL, *out = NULL;
	pid_t pid = spawn_sh("setsid sleep 60 & setsid sleep 60 & sleep 0.3; echo up; wait", &id);
	int n, k;

	n = ptree_collect(&id, 1, &tree);
	assert_int_equal(n, 3);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Walking from the dead root finds nothing now: the record is what keeps them. */
	assert_int_equal(ptree_collect(&id, 1, &out), 0);
	assert_int_equal(ptree_collect(tree, n, &out), 2);
	free(out);
	assert_int_equal(ptree_kill(tree, n, 5.0, &k), 0);
	assert_int_equal(k, 2);
	assert_int_equal(ptree_collect(tree, n, &out), 0);
	free(tree);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_reused_pid_is_spared),
		cmocka_unit_test(test_tree_with_setsid_children),
		cmocka_unit_test(test_orphans_of_a_dead_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
