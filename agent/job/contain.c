/* contain.c -- job containment: a cgroup v2 per job or a recorded /proc tree, crash records. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "job/bootid.h"
#include "job/cgroup.h"
#include "job/contain.h"
#include "log.h"
#include "num.h"
#include "timeutil.h"
#include "xmalloc.h"
#include "banned.h"

/* How long a kill may take: a process in uninterruptible I/O dies when its I/O returns. */
#define CONTAIN_KILL_WAIT_S 30.0
/* how long an emptied cgroup may stay busy before its removal is given up (logged) */
#define CONTAIN_RMDIR_WAIT_S 1.0
#define CONTAIN_TRACK_EVERY_S 0.1
#define RECORD_MAX_BYTES (4 << 20)

int contain_mode_parse(const char *s, enum contain_mode *out)
{
	static const struct {
		const char *name;
		enum contain_mode mode;
	} modes[] = { { "auto", CONTAIN_AUTO },
		      { "cgroup", CONTAIN_CGROUP },
		      { "proc", CONTAIN_PROC } };
	size_t i;

	for (i = 0; s && i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(s, modes[i].name)) {
			*out = modes[i].mode;
			return 0;
		}
	}
	return -EINVAL;
}

/* 64-bit FNV-1a of s as 16 hex digits. */
static void hash_hex(const char *s, char out[17])
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	snprintf(out, 17, "%016" PRIx64, h);
}

int contain_cgroup_path(const char *base, int64_t job_id, char *out, size_t len)
{
	if ((size_t)snprintf(out, len, "%s/job-%lld", base, (long long)job_id) >= len)
		return -ENAMETOOLONG;
	return 0;
}

bool contain_cgroup_path_ok(const char *path, const char *mnt, const char *agent_id, int64_t job_id)
{
	char tail[128];
	size_t n = strlen(mnt), pl = strlen(path), tl;

	if (path[0] != '/' || !n || strncmp(path, mnt, n) || path[n] != '/')
		return false;
	if (strstr(path, "//") || strstr(path, "/./") || strstr(path, "/../"))
		return false;
	tl = (size_t)snprintf(tail, sizeof(tail), "/fleettune/%s/job-%lld", agent_id,
	                      (long long)job_id);
	return pl >= n + tl && !strcmp(path + pl - tl, tail);
}

/* Remove an agent's base (<agent id>) and the "fleettune" above it if nothing else uses them;
 * busy or shared ones stay. */
static void base_prune(const char *base)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", base);
	if (cgroup_remove(dir) < 0 || !(slash = strrchr(dir, '/')) || slash == dir)
		return;
	*slash = '\0';
	cgroup_remove(dir);
}

/* Whether cgroup is a job's directory right in c's base (the base in use, kept). */
static bool base_holds(const struct contain *c, const char *cgroup)
{
	size_t n = strlen(c->base);

	return c->base[0] && !strncmp(cgroup, c->base, n) && cgroup[n] == '/' &&
	       !strchr(cgroup + n + 1, '/');
}

/* Remove a job cgroup's parents (its agent's base, then "fleettune") where unused. */
static void parents_prune(const char *cgroup)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", cgroup);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	base_prune(dir);
}

/* Make a cgroup; another agent pruning the shared "fleettune" parent at the same moment
 * makes a mkdir fail with ENOENT, so try again. */
static int cgroup_make(const char *dir, struct err *e)
{
	int rc = 0, i;

	for (i = 0; i < 5; i++) {
		rc = cgroup_create(dir, e);
		if (rc != -ENOENT)
			break;
	}
	return rc;
}

/* Make a job's cgroup in the agent's base, which lives as long as the agent (contain_fini): one
 * mkdir. Every mkdir and rmdir on a cgroup2 mount, an existing directory's too, waits on the
 * kernel's one cgroup lock, which every agent and container on the host shares: a pass that
 * made its path from the mount down and pruned it after was five of them, and where a fleet's
 * agents share a host (the benchmarks) the last nodes to start then wait 0.1-0.6 s on the
 * others. Only where the base has gone (pruned by a hand or a tool) is the path made again. */
static int job_cgroup_make(const char *dir, struct err *e)
{
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return err_set(e, -errno, ERR_INTERNAL, "cannot create cgroup '%s': %s", dir,
		               strerror(errno));
	return cgroup_make(dir, e);
}

/* The cgroup2 mount point into c->mnt and the hierarchy directory mounted there into root;
 * c->mnt stays "" without one. */
static int mount_find(struct contain *c, char *root, size_t root_len)
{
	struct buf b = BUF_INIT;
	int rc;

	rc = buf_read_file(&b, "/proc/self/mountinfo", 1 << 20);
	if (rc == 0)
		rc = cgroup_mount_find(b.data, c->mnt, sizeof(c->mnt), root, root_len);
	if (rc)
		c->mnt[0] = '\0';
	buf_release(&b);
	return rc;
}

/* Can this process make a cgroup under its own and move a process into it? Fills c->base
 * and c->kill_file; on failure the reason in why. */
static int cgroup_probe(struct contain *c, const char *root, char *why, size_t why_len)
{
	char self[PATH_MAX], own[PATH_MAX], probe[PATH_MAX], path[PATH_MAX];
	struct buf b = BUF_INIT;
	struct err e;
	int rc, fd = -1, status;
	pid_t pid;

	if (!c->mnt[0]) {
		rc = -ENOENT;
		snprintf(why, why_len, "no cgroup2 file system is mounted");
		goto out;
	}
	rc = buf_read_file(&b, "/proc/self/cgroup", 1 << 16);
	if (rc == 0)
		rc = cgroup_self_find(b.data, self, sizeof(self));
	if (rc == 0)
		rc = cgroup_dir_join(c->mnt, root, self, own, sizeof(own));
	if (rc) {
		snprintf(why, why_len, "cannot tell this process's cgroup v2 directory under %s",
		         c->mnt);
		goto out;
	}
	snprintf(c->base, sizeof(c->base), "%s/fleettune/%s", strcmp(own, "/") ? own : "",
	         c->agent_id);
	snprintf(probe, sizeof(probe), "%s/probe-%d", c->base, (int)getpid());
	rc = cgroup_make(probe, &e);
	if (rc) {
		snprintf(why, why_len, "%s", e.msg);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/cgroup.kill", probe);
	c->kill_file = access(path, W_OK) == 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", probe);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	/* What proc.c's children do before exec: write "0" (themselves) to cgroup.procs. */
	pid = fork();
	if (pid == 0)
		_exit(write(fd, "0", 1) == 1 ? 0 : (errno & 0xff));
	if (pid < 0) {
		rc = -errno;
		snprintf(why, why_len, "fork: %s", strerror(errno));
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		rc = -(WIFEXITED(status) ? WEXITSTATUS(status) : EIO);
		snprintf(why, why_len, "cannot move a process into cgroup '%s': %s", probe,
		         strerror(-rc));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (c->base[0]) {
		cgroup_remove(probe);
		if (rc) /* else the base stays, for the jobs (contain_fini) */
			parents_prune(probe);
	}
	buf_release(&b);
	return rc;
}

int contain_init(struct contain *c, const char *sysfs_root, const char *state_dir,
                 enum contain_mode want, struct err *e)
{
	char real[PATH_MAX], root[PATH_MAX], why[sizeof(c->why_proc)];

	memset(c, 0, sizeof(*c));
	bootid_read(sysfs_root, c->boot_id, sizeof(c->boot_id));
	if (state_dir) {
		if (!realpath(state_dir, real))
			snprintf(real, sizeof(real), "%s", state_dir);
		hash_hex(real, c->agent_id);
		snprintf(c->records, sizeof(c->records), "%s/contain", real);
		if (mkdir(c->records, 0700) < 0 && errno != EEXIST)
			return err_set(e, -errno, ERR_INTERNAL, "cannot create '%s': %s",
			               c->records, strerror(errno));
	} else {
		snprintf(real, sizeof(real), "pid %d", (int)getpid());
		hash_hex(real, c->agent_id);
		log_warn("job containment keeps no records (no state directory): a restarted "
		         "agent cannot find what a crashed one left running");
	}
	mount_find(c, root, sizeof(root)); /* also in /proc mode: records of cgroups are kept */
	if (want == CONTAIN_PROC) {
		snprintf(c->why_proc, sizeof(c->why_proc), "--contain proc");
	} else if (cgroup_probe(c, root, why, sizeof(why)) == 0) {
		c->mode = CONTAIN_CGROUP;
		log_info("job containment: one cgroup per job under %s (%s)", c->base,
		         c->kill_file ? "cgroup.kill" : "no cgroup.kill: SIGKILL to every member");
		return 0;
	} else if (want == CONTAIN_CGROUP) {
		return err_set(e, -EPERM, ERR_INTERNAL, "--contain cgroup: %s", why);
	} else {
		snprintf(c->why_proc, sizeof(c->why_proc), "%s", why);
	}
	c->mode = CONTAIN_PROC;
	c->base[0] = '\0';
	log_info("job containment: process trees through /proc with start times checked (%s)",
	         c->why_proc);
	return 0;
}

void contain_fini(struct contain *c)
{
	if (c && c->mode == CONTAIN_CGROUP && c->base[0])
		base_prune(c->base);
}

/* Append a line to the record and make it durable. */
static int record_put(struct contain_pass *cp, const char *line)
{
	size_t n = strlen(line);

	if (cp->record_fd < 0)
		return 0;
	if (write(cp->record_fd, line, n) != (ssize_t)n || fdatasync(cp->record_fd) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* fsync a directory, so a new entry in it survives a crash. */
static void dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static void pass_reset(struct contain_pass *cp)
{
	if (cp->procs_fd >= 0)
		close(cp->procs_fd);
	if (cp->cg_fd >= 0)
		close(cp->cg_fd);
	if (cp->record_fd >= 0)
		close(cp->record_fd);
	free(cp->ids);
	memset(cp, 0, sizeof(*cp));
	cp->procs_fd = cp->cg_fd = cp->record_fd = -1;
}

int contain_pass_begin(struct contain *c, int64_t job_id, struct contain_pass *cp, struct err *e)
{
	char line[PATH_MAX + 64], path[PATH_MAX];
	int rc;

	memset(cp, 0, sizeof(*cp));
	cp->procs_fd = cp->cg_fd = cp->record_fd = -1;
	cp->c = c;
	cp->job_id = job_id;
	if (c->mode == CONTAIN_CGROUP &&
	    contain_cgroup_path(c->base, job_id, cp->cgroup, sizeof(cp->cgroup))) {
		rc = err_set(e, -ENAMETOOLONG, ERR_ENGINE_FAILED, "job %lld: cgroup path too long",
		             (long long)job_id);
		goto fail;
	}
	/* The record first: a crash after this line leaves something to find. */
	if (c->records[0]) {
		snprintf(cp->record, sizeof(cp->record), "%s/job-%lld", c->records,
		         (long long)job_id);
		cp->record_fd = open(cp->record,
		                     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		snprintf(line, sizeof(line), "job %lld\nboot %s\n%s%s%s", (long long)job_id,
		         c->boot_id, cp->cgroup[0] ? "cgroup " : "", cp->cgroup,
		         cp->cgroup[0] ? "\n" : "");
		if (cp->record_fd < 0 || (rc = record_put(cp, line))) {
			rc = err_set(e, -errno, ERR_ENGINE_FAILED, "cannot write '%s': %s",
			             cp->record, strerror(errno));
			goto fail;
		}
		dir_sync(c->records);
	}
	if (c->mode == CONTAIN_CGROUP) {
		rc = job_cgroup_make(cp->cgroup, e);
		if (rc) {
			err_set(e, rc, ERR_ENGINE_FAILED, "job %lld: %s", (long long)job_id,
			        e->msg);
			goto fail;
		}
		snprintf(path, sizeof(path), "%s/cgroup.procs", cp->cgroup);
		cp->procs_fd = open(path, O_WRONLY | O_CLOEXEC);
		if (cp->procs_fd < 0) {
			rc = err_set(e, -errno, ERR_ENGINE_FAILED, "cannot open '%s': %s", path,
			             strerror(errno));
			goto fail;
		}
		cp->cg_fd = open(cp->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	return 0;
fail:
	if (cp->cgroup[0])
		cgroup_remove(cp->cgroup);
	if (cp->record[0])
		unlink(cp->record);
	pass_reset(cp);
	return rc;
}

int contain_pass_join_fd(const struct contain_pass *cp)
{
	return cp && cp->c && cp->c->mode == CONTAIN_CGROUP ? cp->procs_fd : -1;
}

int contain_pass_cgroup_fd(const struct contain_pass *cp)
{
	return cp && cp->c && cp->c->mode == CONTAIN_CGROUP ? cp->cg_fd : -1;
}

/* Remember identities in cp->ids and in the record; returns how many were new. */
static int ids_add(struct contain_pass *cp, const struct pident *add, int n)
{
	char line[96];
	int i, k, added = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < cp->n_ids; k++)
			if (cp->ids[k].pid == add[i].pid && cp->ids[k].start == add[i].start)
				break;
		if (k < cp->n_ids)
			continue;
		cp->ids = xgrow(cp->ids, &cp->cap_ids, cp->n_ids + 1, sizeof(*cp->ids));
		cp->ids[cp->n_ids++] = add[i];
		snprintf(line, sizeof(line), "pid %d %" PRIu64 "\n", (int)add[i].pid, add[i].start);
		if (cp->record_fd >= 0 && write(cp->record_fd, line, strlen(line)) < 0)
			log_warn("cannot write '%s': %s", cp->record, strerror(errno));
		added++;
	}
	if (added && cp->record_fd >= 0 && fdatasync(cp->record_fd) < 0)
		log_warn("cannot sync '%s': %s", cp->record, strerror(errno));
	return added;
}

int contain_pass_admit(struct contain_pass *cp, pid_t pid, struct err *e)
{
	struct ptree_stat st;
	struct pident id;
	int rc;

	if (!cp->c || cp->c->mode != CONTAIN_PROC)
		return 0;
	rc = ptree_stat_read(pid, &st);
	if (rc)
		return err_set(e, rc, ERR_ENGINE_FAILED, "cannot read the start time of process %d",
		               (int)pid);
	id = (struct pident){ pid, st.start };
	ids_add(cp, &id, 1);
	cp->tracked_mono_s = time_mono_s();
	return 0;
}

void contain_pass_track(struct contain_pass *cp)
{
	struct pident *live = NULL;
	int n;

	if (!cp || !cp->c || cp->c->mode != CONTAIN_PROC || !cp->n_ids ||
	    time_mono_s() - cp->tracked_mono_s < CONTAIN_TRACK_EVERY_S)
		return;
	cp->tracked_mono_s = time_mono_s();
	n = ptree_collect(cp->ids, cp->n_ids, &live);
	if (n > 0)
		ids_add(cp, live, n);
	free(live);
}

int contain_pass_alive(struct contain_pass *cp)
{
	struct pident *live = NULL;
	int n;

	if (!cp || !cp->c)
		return 0;
	if (cp->c->mode == CONTAIN_CGROUP) {
		n = cgroup_procs_count(cp->cgroup);
		return n == -ENOENT ? 0 : n;
	}
	if (!cp->n_ids)
		return 0;
	n = ptree_collect(cp->ids, cp->n_ids, &live);
	if (n > 0)
		ids_add(cp, live, n);
	free(live);
	return n;
}

int contain_pass_kill(struct contain_pass *cp, int *n_killed)
{
	if (n_killed)
		*n_killed = 0;
	if (!cp || !cp->c)
		return 0;
	if (cp->c->mode == CONTAIN_CGROUP)
		return cgroup_kill(cp->cgroup, cp->c->kill_file, CONTAIN_KILL_WAIT_S, n_killed);
	contain_pass_alive(cp); /* records the newest descendants first */
	return ptree_kill(cp->ids, cp->n_ids, CONTAIN_KILL_WAIT_S, n_killed);
}

/* "cgroup PATH" or "process tree ..." for log lines. */
static void what_str(const char *cgroup, int n_ids, char *out, size_t len)
{
	if (cgroup && cgroup[0])
		snprintf(out, len, "cgroup %s", cgroup);
	else
		snprintf(out, len, "process tree of %d recorded process(es), start times checked",
		         n_ids);
}

void contain_pass_end(struct contain_pass *cp)
{
	char what[PATH_MAX + 80];
	int n = 0, rc = 0;

	if (!cp || !cp->c)
		return;
	what_str(cp->cgroup, cp->n_ids, what, sizeof(what));
	if (contain_pass_alive(cp) > 0) {
		rc = contain_pass_kill(cp, &n);
		if (n > 0)
			log_info("killed %d leftover process(es) of job %lld (%s)", n,
			         (long long)cp->job_id, what);
	}
	if (cp->cgroup[0])
		rc = cgroup_remove_wait(cp->cgroup, CONTAIN_RMDIR_WAIT_S);
	if (rc) {
		log_error("job %lld: processes remain in %s (%s); the next start tries again",
		          (long long)cp->job_id, what, strerror(-rc));
	} else if (cp->record[0]) {
		unlink(cp->record);
	}
	pass_reset(cp);
}

/* Kill what one record names; returns the number killed, or -errno when something is left. */
static int record_recover(struct contain *c, const char *path, int64_t job_id)
{
	struct buf b = BUF_INIT;
	struct pident *ids = NULL;
	char cgroup[PATH_MAX] = "", boot[64] = "", what[PATH_MAX + 80], kill_file[PATH_MAX + 16];
	const char *line, *end;
	int n_ids = 0, cap = 0, n = 0, killed = 0, rc;
	unsigned long long start;
	int pid;

	rc = buf_read_file(&b, path, RECORD_MAX_BYTES);
	if (rc) {
		log_error("cannot read '%s': %s", path, strerror(-rc));
		goto out;
	}
	for (line = b.data; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		if (!strncmp(line, "boot ", 5))
			snprintf(boot, sizeof(boot), "%.*s", (int)(end - line - 5), line + 5);
		else if (!strncmp(line, "cgroup ", 7))
			snprintf(cgroup, sizeof(cgroup), "%.*s", (int)(end - line - 7), line + 7);
		else if (sscanf(line, "pid %d %llu", &pid, &start) == 2 && pid > 0) {
			ids = xgrow(ids, &cap, n_ids + 1, sizeof(*ids));
			ids[n_ids++] = (struct pident){ pid, start };
		}
	}
	what_str(cgroup, n_ids, what, sizeof(what));
	if (cgroup[0]) {
		if (!contain_cgroup_path_ok(cgroup, c->mnt, c->agent_id, job_id)) {
			log_error(
			        "job %lld: ignoring cgroup '%s' of '%s': not a job cgroup of this "
			        "agent on %s",
			        (long long)job_id, cgroup, path,
			        c->mnt[0] ? c->mnt : "(no cgroup2)");
		} else {
			snprintf(kill_file, sizeof(kill_file), "%s/cgroup.kill", cgroup);
			rc = cgroup_kill(cgroup, access(kill_file, W_OK) == 0, CONTAIN_KILL_WAIT_S,
			                 &n);
			killed += n;
			if (rc == 0 || rc == -ENOENT)
				rc = cgroup_remove_wait(cgroup, CONTAIN_RMDIR_WAIT_S);
			if (rc == 0 && !base_holds(c, cgroup))
				parents_prune(cgroup); /* not the base in use (contain_fini) */
			if (rc)
				goto out;
		}
	}
	if (n_ids && !strcmp(boot, c->boot_id)) {
		rc = ptree_kill(ids, n_ids, CONTAIN_KILL_WAIT_S, &n);
		killed += n;
		if (rc)
			goto out;
	}
	rc = 0;
out:
	if (rc)
		log_error("job %lld: could not kill everything of %s: %s (record '%s' kept)",
		          (long long)job_id, what, strerror(-rc), path);
	else if (killed)
		log_info("killed %d leftover process(es) of job %lld (%s)", killed,
		         (long long)job_id, what);
	else
		log_info("job %lld: no process left of %s", (long long)job_id, what);
	buf_release(&b);
	free(ids);
	return rc ? rc : killed;
}

int contain_recover(struct contain *c)
{
	char path[PATH_MAX];
	struct dirent *de;
	int64_t job_id;
	int total = 0, rc;
	DIR *d;

	if (!c->records[0] || !(d = opendir(c->records)))
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "job-", 4) || num_parse_i64(de->d_name + 4, &job_id) ||
		    job_id <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", c->records, de->d_name);
		rc = record_recover(c, path, job_id);
		if (rc >= 0) {
			total += rc;
			unlink(path);
		}
	}
	closedir(d);
	return total;
}
