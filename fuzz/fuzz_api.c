/* fuzz_api.c -- libFuzzer harness for the agent's request handlers (params, sysctl, jobs and
 * the rest of the route table), called as the HTTP layer calls them, on a temp sysfs tree. */
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "http/httpd.h"
#include "queue/job.h"
#include "state/agent.h"
#include "testutil.h"
#include "timeutil.h"
#include "xmalloc.h"

/* One agent for the whole run: an allowlisted fake device, sysctl writes allowed, every
 * engine unavailable (empty PATH, missing fio), so a job body is validated to the end and
 * then refused with 422: nothing ever runs. */
static struct agent agent;
static char *root;

/* The sysfs and sysctl values every input starts from. */
static void tree_make(void)
{
	tu_fake_device(root, "loop0", 1);
	tu_fake_device(root, "sdb", 0);
	tu_write(root, "proc/sys/vm/dirty_ratio", "20\n", 0644);
	tu_write(root, "proc/sys/vm/dirty_background_ratio", "10\n", 0644);
	tu_write(root, "proc/sys/vm/swappiness", "60\n", 0644);
	tu_write(root, "proc/sys/fs/file-max", "9223372036854775807\n", 0644);
}

/* Every file of the tree as made, to put back what an input wrote (rewriting only what
 * differs keeps a write request about as cheap as a read). */
static struct {
	char path[PATH_MAX];
	char data[64];
	size_t len;
} files[128];
static int n_files;

static int file_note(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	int fd;
	ssize_t n;

	if (flag != FTW_F || n_files >= (int)(sizeof(files) / sizeof(files[0])))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, files[n_files].data, sizeof(files[n_files].data));
	close(fd);
	if (n < 0 || (size_t)n >= sizeof(files[n_files].data))
		return 0;
	snprintf(files[n_files].path, sizeof(files[n_files].path), "%s", path);
	files[n_files].len = (size_t)n;
	n_files++;
	return 0;
}

static void tree_reset(void)
{
	char now[sizeof(files[0].data) + 1];
	ssize_t n;
	int i, fd;

	for (i = 0; i < n_files; i++) {
		fd = open(files[i].path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, now, sizeof(now));
		if (n != (ssize_t)files[i].len || memcmp(now, files[i].data, files[i].len))
			if (ftruncate(fd, 0) < 0 ||
			    pwrite(fd, files[i].data, files[i].len, 0) != (ssize_t)files[i].len)
				abort();
		close(fd);
	}
}

/* The tree lives in memory: under $FT_FUZZ_TMP (run.sh makes one in /dev/shm and removes
 * it afterwards; libFuzzer leaves without running atexit handlers), else in /tmp. */
static void agent_setup(void)
{
	static char state[512], db[512], fio[512], path_dir[512], allow[1][8] = { "loop0" };
	const char *tmp = getenv("FT_FUZZ_TMP");
	struct tune_audit audit;
	struct keeper_env kenv;
	struct jobq_env env;
	char tmpl[512];
	struct err e;

	snprintf(tmpl, sizeof(tmpl), "%s/ft-fuzz-api-XXXXXX", tmp ? tmp : "/tmp");
	root = tmp && mkdtemp(tmpl) ? xstrdup(tmpl) : tu_tmpdir();
	tree_make();
	snprintf(path_dir, sizeof(path_dir), "%s/sys", root);
	nftw(path_dir, file_note, 16, FTW_PHYS);
	snprintf(path_dir, sizeof(path_dir), "%s/proc", root);
	nftw(path_dir, file_note, 16, FTW_PHYS);
	if (n_files < 40)
		abort(); /* the tree was not made */
	snprintf(state, sizeof(state), "%s/state", root);
	snprintf(db, sizeof(db), "%s/agent.db", state);
	snprintf(fio, sizeof(fio), "%s/no-fio", root);
	snprintf(path_dir, sizeof(path_dir), "%s/empty-path", root);
	mkdir(state, 0700);
	mkdir(path_dir, 0755);
	setenv("PATH", path_dir, 1);
	agent.cfg.state_dir = state;
	agent.cfg.fio_path = fio;
	agent.cfg.allow_devices[0] = allow[0];
	agent.cfg.n_allow_devices = 1;
	agent.cfg.allow_sysctl = true;
	agent.cfg.params_cache_ms = 0;
	agent.cfg.contain = CONTAIN_PROC; /* no job runs: leave the cgroup tree alone */
	agent.cfg.sysfs_root = root;
	agent.fs.root = root;
	agent.fs.allow_devices = agent.cfg.allow_devices;
	agent.fs.n_allow_devices = 1;
	agent.fs.allow_sysctl = true;
	snprintf(agent.node, sizeof(agent.node), "fuzz");
	snprintf(agent.token, sizeof(agent.token), "fuzz-token-0123456789");
	if (store_open(&agent.store, db, &e)) {
		fprintf(stderr, "fuzz_api: %s\n", e.msg);
		abort();
	}
	audit = agent_tune_audit(&agent);
	tune_init(&agent.tune, &agent.fs, &audit);
	pthread_mutex_init(&agent.pcache.lock, NULL);
	agent.sessions.tune = &agent.tune;
	agent.sessions.store = agent.store;
	env = agent_jobq_env(&agent);
	if (jobq_start(&agent.jobs, &env, &e)) {
		fprintf(stderr, "fuzz_api: %s\n", e.msg);
		abort();
	}
	/* The profiles it keeps, without the worker: only the requests write. */
	kenv = agent_keeper_env(&agent);
	kenv.manual = true;
	if (keeper_start(&agent.keeper, &kenv, &e)) {
		fprintf(stderr, "fuzz_api: %s\n", e.msg);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	agent_setup();
	return 0;
}

/* Query arguments as the HTTP layer collects them: decoded, '+' as space, undecodable
 * pairs dropped, at most HTTP_MAX_QUERY. */
static void query_parse(char *q, struct http_req *r)
{
	char *amp, *eq, *k, *v;

	for (; q && *q && r->n_query < HTTP_MAX_QUERY; q = amp) {
		amp = strchr(q, '&');
		if (amp)
			*amp++ = '\0';
		eq = strchr(q, '=');
		if (eq)
			*eq++ = '\0';
		k = http_decode(q, strlen(q), true);
		v = http_decode(eq ? eq : "", eq ? strlen(eq) : 0, true);
		if (!k || !v) {
			free(k);
			free(v);
			continue;
		}
		r->query[r->n_query].key = k;
		r->query[r->n_query].value = v;
		r->n_query++;
	}
}

/* Whatever a handler answers is a real status with a JSON body; errors carry a code and a
 * message. An empty error body is tolerated: issue 11 item 7 (a message that is not valid
 * UTF-8 makes json_pack fail) belongs to the API layer's owner. */
static void resp_check(const struct http_resp *resp)
{
	json_t *o, *err;

	if (resp->status < 200 || resp->status > 599)
		abort();
	if (!resp->body)
		return;
	if (resp->content_type && strncmp(resp->content_type, "application/json", 16))
		return;
	o = json_loadb(resp->body, resp->body_len, 0, NULL);
	if (!o)
		abort();
	if (resp->status >= 400) {
		err = json_object_get(o, "error");
		if (!json_is_string(json_object_get(err, "code")) ||
		    !json_is_string(json_object_get(err, "message")))
			abort();
	}
	json_decref(o);
}

/* The input is "METHOD TARGET\nBODY". The target is routed through api_routes exactly as
 * dispatch() does; the matching handler runs on the body. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t seq;
	char *text = xmalloc(size + 1), *nl, *sp, *method = "GET", *target, *query, *body;
	struct http_resp resp = { 0 };
	struct http_req req;
	int i, k, m;

	memcpy(text, data, size);
	text[size] = '\0';
	nl = memchr(text, '\n', size);
	body = nl ? nl + 1 : text + size;
	if (nl)
		*nl = '\0';
	target = text;
	sp = strchr(text, ' ');
	if (sp) {
		*sp = '\0';
		method = text;
		target = sp + 1;
	}
	query = strchr(target, '?');
	if (query)
		*query++ = '\0';
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = target;
	req.body = body;
	req.body_len = size - (size_t)(body - text);
	req.id = ++seq;
	for (i = 0; i < api_n_routes; i++) {
		m = http_route_match(api_routes[i].pattern, target, &req);
		if (m < 0)
			break; /* the HTTP layer answers 400 itself */
		if (m == 0)
			continue;
		if (!strcmp(api_routes[i].method, method)) {
			query_parse(query, &req);
			api_routes[i].fn(&agent, &req, &resp);
			resp_check(&resp);
		}
		for (k = 0; k < req.n_args; k++)
			free(req.args[k]);
		req.n_args = 0;
		if (resp.status)
			break;
	}
	for (k = 0; k < req.n_query; k++) {
		free(req.query[k].key);
		free(req.query[k].value);
	}
	if (strcmp(method, "GET"))
		tree_reset(); /* the next input starts from the same device values */
	free(resp.body);
	free(resp.location);
	free(text);
	return 0;
}
