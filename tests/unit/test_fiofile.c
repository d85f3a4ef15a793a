/* test_fiofile.c -- fiofile.c: the job-file parser, every refused option named, the checks of
 * where it runs, the rewrite, and the deadline and metrics read from it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fiofile.h"
#include "testutil.h"

static struct fiofile *parse_ok(const char *text)
{
	struct fiofile *f = NULL;
	struct err e;

	err_clear(&e);
	if (fiofile_parse(text, strlen(text), &f, &e))
		fail_msg("refused: %s\n%s", e.msg, text);
	return f;
}

static void expect_refused(const char *text, const char *msg)
{
	struct fiofile *f = (struct fiofile *)1;
	struct err e;

	err_clear(&e);
	assert_int_equal(fiofile_parse(text, strlen(text), &f, &e), -EINVAL);
	assert_null(f);
	assert_int_equal(e.code, ERR_BAD_REQUEST);
	if (strcmp(e.msg, msg))
		fail_msg("for\n%s\ngot  \"%s\"\nwant \"%s\"", text, e.msg, msg);
}

/* key=value as the only option of a job section [j], at line 2. */
static void expect_option_refused(const char *line, const char *why)
{
	char text[512], msg[512], key[64];

	snprintf(text, sizeof(text), "[j]\n%s\nsize=1m\n", line);
	snprintf(key, sizeof(key), "%.*s", (int)strcspn(line, "="), line);
	snprintf(msg, sizeof(msg), "fio_file line 2 [j] %s: %s", key, why);
	expect_refused(text, msg);
}

static void test_parse(void **state)
{
	struct fiofile *f;

	(void)state;
	f = parse_ok("; a comment\n"
	             "# another\n"
	             "[global]\n"
	             "ioengine=libaio\n"
	             "direct=1\n"
	             "runtime = 30s\r\n"
	             "time_based\n"
	             "\n"
	             "[seq read]\n"
	             "  rw=read\n"
	             "\tbs=1m\n"
	             "[rand-write.4k]\n"
	             "readwrite=randwrite\n"
	             "blocksize=4k\n"
	             "numjobs=4\n");
	assert_int_equal(f->n_sections, 3);
	assert_int_equal(f->n_jobs, 2);
	assert_true(f->sections[0].global);
	assert_string_equal(f->sections[1].name, "seq read");
	/* the job sections start from the [global] before them */
	assert_true(f->sections[1].opts.fio.has_runtime_s);
	assert_int_equal(f->sections[1].opts.fio.runtime_s, 30);
	assert_true(f->sections[2].opts.fio.time_based);
	assert_int_equal(f->sections[2].opts.fio.numjobs, 4);
	assert_string_equal(f->sections[2].opts.fio.rw, "randwrite");
	assert_int_equal(f->sections[2].opts.fio.bs, 4096);
	assert_int_equal(f->n_lines, 9);
	assert_string_equal(f->lines[2].key, "runtime");
	assert_string_equal(f->lines[2].value, "30s");
	assert_null(f->lines[3].value);
	fiofile_free(f);
	fiofile_free(NULL);
}

/* Every option that must never run from a root daemon is refused, naming it, its section
 * and its line. */
static void test_refused_options(void **state)
{
	static const char *const cmd = "refused: it runs a command as root";
	static const char *const engines =
	        "refused: only libaio, io_uring, psync, sync, pvsync, pvsync2, vsync, posixaio or "
	        "mmap (an external: or exec engine, or any other, loads or runs code)";
	static const char *const group = "refused: it makes a second reporting group: a pass "
	                                 "reports one";

	(void)state;
	expect_option_refused("exec_prerun=touch /tmp/x", cmd);
	expect_option_refused("exec_postrun=rm -rf /", cmd);
	/* any spelling fio might take, and some it does not: refused all the same */
	expect_option_refused("EXEC_PRERUN=x", cmd);
	expect_option_refused("exec-postrun=x", cmd);
	expect_option_refused("ioengine=exec", engines);
	expect_option_refused("ioengine=external:/tmp/evil.so", engines);
	expect_option_refused("ioengine=/tmp/evil.so", engines);
	expect_option_refused("ioengine=net", engines);
	expect_option_refused("ioengine=sg", engines);
	expect_option_refused("ioengine", engines);
	expect_option_refused("ioscheduler=none", "refused: it writes the device's scheduler: give "
	                                          "it as a job param (\"params\")");
	expect_option_refused("cgroup=x",
	                      "refused: it makes cgroups outside the job's containment");
	expect_option_refused("cgroup_weight=100",
	                      "refused: it makes cgroups outside the job's containment");
	expect_option_refused("cgroup_nodelete=1", "refused: it leaves cgroups behind");
	expect_option_refused("profile=act", "refused: it brings a profile's options, which the "
	                                     "agent has not checked");
	expect_option_refused("allow_mounted_write=1",
	                      "refused: it writes a device that is mounted");
	expect_option_refused("replay_redirect=/dev/sda", "refused: it sends the I/O to another "
	                                                  "device");
	expect_option_refused("opendir=/etc", "refused: it adds files from outside the job's "
	                                      "directory");
	expect_option_refused("stonewall", group);
	expect_option_refused("wait_for_previous", group);
	expect_option_refused("new_group", group);
	expect_option_refused("daemonize=/tmp/pid", "refused: it is a command-line option of fio's "
	                                            "(it would detach from the agent)");
	expect_option_refused("server", "refused: it is a command-line option of fio's (it would "
	                                "run a server)");
	expect_option_refused("client=10.0.0.1", "refused: it is a command-line option of fio's "
	                                         "(it would connect to a server)");
	expect_option_refused("remote-config=x", "refused: it is a command-line option of fio's "
	                                         "(client and server)");
	expect_option_refused("output=/etc/passwd", "refused: it is a command-line option of "
	                                            "fio's (it would write elsewhere)");
	expect_option_refused("output-format=terse", "refused: it is a command-line option of "
	                                             "fio's (the agent reads JSON)");
	expect_option_refused("trigger-file=/tmp/t", "refused: fio's triggers run commands (and "
	                                             "are command-line options)");
	expect_option_refused("trigger=reboot", "refused: fio's triggers run commands (and are "
	                                        "command-line options)");
	expect_option_refused("trigger-remote=x", "refused: fio's triggers run commands (and are "
	                                          "command-line options)");
	expect_option_refused("mem=mmaphuge:/hugetlbfs/file",
	                      "refused: a memory file is a path outside the job");
	expect_option_refused("iomem=mmap:/etc/x", "refused: a memory file is a path outside the "
	                                           "job");
	expect_option_refused("filename_format=../../etc/$jobname",
	                      "refused: names files outside the job's directory");
	expect_option_refused("unified_rw_reporting=both",
	                      "refused: it changes the figures fio reports, which the agent reads");
	expect_option_refused("percentile_list=50:90",
	                      "refused: it changes the figures fio reports, which the agent reads");
	expect_option_refused("gtod_reduce=1",
	                      "refused: it changes the figures fio reports, which the agent reads");
	/* what the agent reads for the deadline, it must understand */
	expect_option_refused("runtime=$mb_memory", "the agent reads it for the pass deadline and "
	                                            "'$mb_memory' is not a time like 30 or 30s");
	expect_option_refused("rate=fast", "the agent reads it for the pass deadline and 'fast' is "
	                                   "not a rate like 10m or 10m,5m");
	expect_option_refused("thinktime=1m30s", "the agent reads it for the pass deadline and "
	                                         "'1m30s' is not a time like 100 (us) or 10ms");
	expect_option_refused("numjobs=0", "the agent reads it for the pass deadline and '0' is "
	                                   "not a whole number 1..256 (the agent's limit, as for "
	                                   "the fio object)");
	expect_option_refused("numjobs=10000", "the agent reads it for the pass deadline and "
	                                       "'10000' is not a whole number 1..256 (the agent's "
	                                       "limit, as for the fio object)");
	expect_option_refused("name=../../etc/cron.d/x",
	                      "refused: a job's name is 1..64 of [A-Za-z0-9_.+- ] (fio names its "
	                      "files after it)");
	expect_option_refused("filename_format=..", "refused: names files outside the job's "
	                                            "directory");
	/* fine: options that only shape the I/O */
	fiofile_free(parse_ok("[j]\nioengine=io_uring\nmem=mmap\nrate=1m,500k\nrate_iops=,50\n"
	                      "bssplit=4k/50:64k/50\nfilename_format=$jobname.$jobnum\n"
	                      "hugepage-size=2m\nsize=10%\nstartdelay=1-3\n"));
}

static void test_refused_structure(void **state)
{
	char *big;

	(void)state;
	expect_refused(
	        "[j]\nsize=1m\ninclude /etc/fio/other.fio\n",
	        "fio_file line 3: include: refused: the agent runs only the text it was given");
	/* fio includes what follows any line's "include" and one more byte */
	expect_refused("[j]\nincludeXxfio\n", "fio_file line 2: include: refused: the agent runs "
	                                      "only the text it was given");
	expect_refused("[j]\nincludes=1\n", "fio_file line 2: include: refused: the agent runs "
	                                    "only the text it was given");
	expect_refused("[j]\n  Include x\n", "fio_file line 2: include: refused: the agent runs "
	                                     "only the text it was given");
	expect_refused("size=1m\n[j]\n", "fio_file line 1: an option outside a [section]");
	expect_refused("[global]\nsize=1m\n", "fio_file: no job section (a [name] other than "
	                                      "[global])");
	expect_refused("", "fio_file: no job section (a [name] other than [global])");
	expect_refused("[j] x\n", "fio_file line 1: a section header is [name] and nothing after");
	expect_refused("[j\n", "fio_file line 1: a section header is [name] and nothing after");
	expect_refused("[]\n", "fio_file line 1: a section's name is 1..64 bytes");
	expect_refused("[../x]\n", "fio_file line 1: section [../x]: a name is of [A-Za-z0-9_.+- ] "
	                           "(fio names its files after it)");
	expect_refused("[j]\nsize=${HOME}\n", "fio_file line 2: refused: an environment reference "
	                                      "(${...}) would read the agent's environment");
	expect_refused("[j]\nsize=1m\x1b[2J\n", "fio_file: a control character at byte 12 (only "
	                                        "tabs and line ends)");
	expect_refused("[j]\nexec_prerun:x=y\n", "fio_file line 2 [j]: 'exec_prerun:x' is not an "
	                                         "option name");
	expect_refused("[j]\n=1\n", "fio_file line 2 [j]: '' is not an option name");
	expect_refused("[j]\ntime_based\n", "fio_file [j]: time_based needs runtime (fio would run "
	                                    "forever)");
	expect_refused("[j]\nsize=1m\n[k]\n[l]\n[m]\n[n]\n[o]\n[p]\n[q]\n[r]\n[s]\n[t]\n[u]\n[v]\n"
	               "[w]\n[x]\n[y]\n[z]\n",
	               "fio_file line 18: more than 16 sections");
	big = calloc(1, FIOFILE_MAX_BYTES + 2);
	memset(big, ';', FIOFILE_MAX_BYTES + 1);
	expect_refused(big, "fio_file: 32769 bytes; at most 32768");
	memset(big, 0, FIOFILE_MAX_BYTES + 2);
	snprintf(big, FIOFILE_MAX_BYTES, "[j]\ndescription=");
	memset(big + strlen(big), 'x', FIOFILE_LINE_MAX);
	expect_refused(big, "fio_file line 2: longer than 1024 bytes");
	free(big);
	{
		struct fiofile *f = NULL;
		struct err e;

		err_clear(&e);
		assert_int_equal(fiofile_parse("[j]\0exec_prerun=x\n", 18, &f, &e), -EINVAL);
		assert_string_equal(e.msg, "fio_file: contains a NUL byte");
	}
}

static void expect_target(const char *text, const char *dev, bool in_dir, const char *dir,
                          const char *msg)
{
	struct fiofile *f = parse_ok(text);
	struct err e;
	int rc;

	err_clear(&e);
	rc = fiofile_target_check(f, dev, in_dir, dir, &e);
	fiofile_free(f);
	if (!msg) {
		if (rc)
			fail_msg("refused: %s\n%s", e.msg, text);
		return;
	}
	if (rc != -EINVAL || strcmp(e.msg, msg))
		fail_msg("for\n%s\ngot %d \"%s\"\nwant \"%s\"", text, rc, e.msg, msg);
}

/* filename, directory and files beside fio: only the job's own. */
static void test_target_check(void **state)
{
	(void)state;
	expect_target("[j]\nfilename=/dev/loop3\n", "/dev/loop3", false, NULL, NULL);
	expect_target("[j]\nrw=read\n", "/dev/loop3", false, NULL, NULL);
	expect_target("[j]\nfilename=/dev/sda\n", "/dev/loop3", false, NULL,
	              "fio_file line 2 [j] filename: refused: the job runs on its device "
	              "/dev/loop3; leave filename out (the agent sets it) or give exactly that");
	expect_target("[global]\nfilename=/etc/shadow\n[j]\n", "/dev/loop3", false, NULL,
	              "fio_file line 2 [global] filename: refused: the job runs on its device "
	              "/dev/loop3; leave filename out (the agent sets it) or give exactly that");
	expect_target("[j]\nfilename=/dev/loop3:/dev/sda\n", "/dev/loop3", false, NULL,
	              "fio_file line 2 [j] filename: refused: the job runs on its device "
	              "/dev/loop3; leave filename out (the agent sets it) or give exactly that");
	expect_target("[j]\ndirectory=/tmp\n", "/dev/loop3", false, NULL,
	              "fio_file line 2 [j] directory: refused: a raw-device job has no directory "
	              "(give the job a \"directory\" instead)");
	expect_target("[j]\nwrite_bw_log=bw\n", "/dev/loop3", false, NULL,
	              "fio_file line 2 [j] write_bw_log: refused: it writes or reads files beside "
	              "fio, and a raw-device job has no directory of its own (give the job a "
	              "\"directory\")");
	expect_target("[j]\nunlink=1\n", "/dev/loop3", false, NULL,
	              "fio_file line 2 [j] unlink: refused: a raw-device job's file is the device "
	              "node, which fio may not unlink");
	expect_target("[j]\nsize=1m\nfill_fs=1\n", "/dev/loop3", true, "/srv/b",
	              "fio_file line 3 [j] fill_fs: refused: in a directory job it would fill the "
	              "directory's whole filesystem (give size)");
	expect_target("[j]\nfill_device=1\n", "/dev/loop3", false, NULL, NULL);
	expect_target("[j]\nverify_dump=1\n", "/dev/loop3", false, NULL,
	              "fio_file line 2 [j] verify_dump: refused: it writes or reads files beside "
	              "fio, and a raw-device job has no directory of its own (give the job a "
	              "\"directory\")");
	/* in a directory */
	expect_target("[j]\nsize=1m\nfilename=data.0\nwrite_lat_log=lat\nwrite_iolog=io.log\n",
	              "/dev/loop3", true, "/srv/bench", NULL);
	expect_target("[j]\nsize=1m\ndirectory=/srv/bench/\n", "/dev/loop3", true, "/srv/bench",
	              NULL);
	expect_target("[j]\nsize=1m\ndirectory=/srv\n", "/dev/loop3", true, "/srv/bench",
	              "fio_file line 3 [j] directory: refused: the job runs in /srv/bench; leave "
	              "directory out (the agent sets it) or give exactly that");
	expect_target("[j]\nsize=1m\ndirectory=/srv\n", "/dev/loop3", true, NULL,
	              "fio_file line 3 [j] directory: refused: the job runs in its own filesystem "
	              "(no directory may be named); leave directory out (the agent sets it) or "
	              "give exactly that");
	expect_target("[j]\nsize=1m\nfilename=../../etc/passwd\n", "/dev/loop3", true, "/srv/b",
	              "fio_file line 3 [j] filename: refused: in a directory job, a plain name "
	              "([A-Za-z0-9_.+-], no '/' or ':') in the job's directory");
	expect_target("[j]\nsize=1m\nwrite_bw_log=/var/log/x\n", "/dev/loop3", true, "/srv/b",
	              "fio_file line 3 [j] write_bw_log: refused: a log or iolog is a plain name "
	              "([A-Za-z0-9_.+-]) in the pass's own directory");
	expect_target("[j]\nsize=1m\nread_iolog=/etc/shadow\n", "/dev/loop3", true, "/srv/b",
	              "fio_file line 3 [j] read_iolog: refused: a log or iolog is a plain name "
	              "([A-Za-z0-9_.+-]) in the pass's own directory");
	expect_target("[j]\nrw=write\n", "/dev/loop3", true, "/srv/b",
	              "fio_file [j]: size: required when the job writes files in a directory");
	expect_target("[global]\nsize=4m\n[j]\nrw=write\n", "/dev/loop3", true, "/srv/b", NULL);
}

static void test_render(void **state)
{
	struct engine_target raw = { "fio", "/dev/loop3", NULL, "w", NULL, NULL };
	struct engine_target dir = { "fio", "/dev/loop3", "/proc/1/fd/7/.", "w", NULL, NULL };
	struct fiofile *f = parse_ok("[global]\nfilename=/dev/loop3\nruntime=2\n[a b]\nrw=read\n"
	                             "[c]\nrw=write\nfilename=/dev/loop3\n");
	struct fiofile *g = parse_ok("[global]\nsize=1m\ndirectory=/x:y\n[a]\nfilename=d\n");
	char *txt;

	(void)state;
	txt = fiofile_render(f, &raw);
	assert_string_equal(txt,
	                    "; rewritten by fleettune-agent: the job's target and group_reporting\n"
	                    "[global]\nruntime=2\n"
	                    "[a b]\nrw=read\nfilename=/dev/loop3\nverify_state_save=0\n"
	                    "group_reporting\n"
	                    "[c]\nrw=write\nfilename=/dev/loop3\nverify_state_save=0\n"
	                    "group_reporting\n");
	free(txt);
	txt = fiofile_render(g, &dir);
	assert_string_equal(txt,
	                    "; rewritten by fleettune-agent: the job's target and group_reporting\n"
	                    "[global]\nsize=1m\n"
	                    "[a]\ndirectory=/proc/1/fd/7/.\nfilename=d\ngroup_reporting\n");
	free(txt);
	fiofile_free(f);
	fiofile_free(g);
}

/* The deadline: sections side by side; the longest timed one, plus each bounded by its I/O
 * (rate limits, thinktime, loops). The metrics: every job section's. */
static void test_deadline_metrics(void **state)
{
	const uint64_t MiB = 1024 * 1024;
	struct metric_names names = { 0 };
	struct fiofile *f;

	(void)state;
	f = parse_ok("[global]\nruntime=1m\n[a]\nramp_time=5s\nrw=read\n[b]\nruntime=10\n"
	             "rw=randwrite\n");
	assert_true(fio_file_pass_bound_s(f, false, 1024 * MiB) == 65);
	assert_true(fio_file_expected_runtime_s(f) == 65);
	fio_file_metrics_list(f, &names);
	assert_true(metric_names_has(&names, "read.bw_mib"));
	assert_true(metric_names_has(&names, "write.iops"));
	assert_false(metric_names_has(&names, "trim.iops"));
	fiofile_free(f);
	/* 64 MiB at 1 MiB/s, twice (loops): 128 s of rate and 128 s at the floor; beside it a
	 * 30 s timed section */
	f = parse_ok("[a]\nsize=64m\nrate=1m,2m\nloops=2\n[b]\nruntime=30\n");
	assert_true(fio_file_pass_bound_s(f, false, 1024 * MiB) == 30 + 128 + 128);
	assert_true(fio_file_expected_runtime_s(f) == 128);
	fiofile_free(f);
	/* thinktime 1 ms after each of 4096 4k blocks, and a startdelay of up to 3 s */
	f = parse_ok("[a]\nsize=16m\nbs=4k\nthinktime=1ms\nstartdelay=1-3\n");
	assert_true(fabs(fio_file_pass_bound_s(f, false, 1024 * MiB) - (3 + 16 + 4.096)) < 1e-9);
	fiofile_free(f);
	/* rate_iops with a bssplit: its smallest block */
	f = parse_ok("[a]\nsize=8m\nbssplit=4k/50:1m/50\nrate_iops=128\nrw=randrw\nrwmixread=0\n");
	assert_true(fio_file_pass_bound_s(f, false, 1024 * MiB) == 8 + 16);
	names.n = 0;
	fio_file_metrics_list(f, &names);
	assert_false(metric_names_has(&names, "read.iops"));
	assert_true(metric_names_has(&names, "write.iops"));
	fiofile_free(f);
	/* size as a share of the device: the device bounds it */
	f = parse_ok("[a]\nsize=50%\n");
	assert_true(fio_file_pass_bound_s(f, false, 100 * MiB) == 100);
	fiofile_free(f);
	f = parse_ok("[global]\nsize=4m\n[a]\nsize=50%\n");
	assert_true(fio_file_pass_bound_s(f, false, 100 * MiB) == 100);
	fiofile_free(f);
	/* io_size past size: the I/O it asks for */
	f = parse_ok("[a]\nsize=4m\nio_size=16m\n");
	assert_true(fio_file_pass_bound_s(f, false, 100 * MiB) == 16);
	fiofile_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused_options),
		cmocka_unit_test(test_refused_structure),
		cmocka_unit_test(test_target_check),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_deadline_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
