/* test_httpd.c -- percent-decoding, the constant-time token compare, strict number parsing,
 * and a real server on 127.0.0.1: every route's query parameters checked by its table; held
 * requests (long-polls) woken, timed out, many at once without a thread each, past the idle
 * timeout, and answered 503 when the server stops. */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/httpd.h"
#include "num.h"
#include "testutil.h"
#include "timeutil.h"

static void test_decode(void **state)
{
	char *s;

	s = http_decode("loop0", 5, false);
	assert_string_equal(s, "loop0");
	free(s);
	s = http_decode("..%2f..%2Fetc", 13, false);
	assert_string_equal(s, "../../etc"); /* decoded, then rejected by the router */
	free(s);
	s = http_decode("a+b%20c", 7, true);
	assert_string_equal(s, "a b c");
	free(s);
	s = http_decode("a+b", 3, false);
	assert_string_equal(s, "a+b");
	free(s);
	assert_null(http_decode("loop0%00x", 9, false)); /* NUL */
	assert_null(http_decode("%zz", 3, false));
	assert_null(http_decode("abc%2", 5, false));
	assert_null(http_decode("abc%", 4, false));
}

static void test_token_equal(void **state)
{
	assert_true(http_token_equal("abcdef0123", "abcdef0123"));
	assert_false(http_token_equal("abcdef0124", "abcdef0123"));
	assert_false(http_token_equal("abcdef012", "abcdef0123"));
	assert_false(http_token_equal("abcdef01234", "abcdef0123"));
	assert_false(http_token_equal("", "abcdef0123"));
}

static void test_num(void **state)
{
	int64_t v;
	uint64_t b;

	assert_int_equal(num_parse_i64("128", &v), 0);
	assert_int_equal(v, 128);
	assert_int_equal(num_parse_i64("-1", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(num_parse_i64("0", &v), 0);
	assert_int_equal(num_parse_i64("010", &v), -EINVAL);
	assert_int_equal(num_parse_i64("-0", &v), -EINVAL);
	assert_int_equal(num_parse_i64("+1", &v), -EINVAL);
	assert_int_equal(num_parse_i64("1 ", &v), -EINVAL);
	assert_int_equal(num_parse_i64("0x10", &v), -EINVAL);
	assert_int_equal(num_parse_i64("99999999999999999999", &v), -ERANGE);
	assert_int_equal(num_parse_kernel_i64("256\n", &v), 0);
	assert_int_equal(v, 256);
	assert_int_equal(num_parse_kernel_i64("write back", &v), -EINVAL);
	assert_int_equal(num_parse_size("4M", &b), 0);
	assert_int_equal(b, 4ULL << 20);
	assert_int_equal(num_parse_size("2g", &b), 0);
	assert_int_equal(b, 2ULL << 30);
	assert_int_equal(num_parse_size("64KiB", &b), 0);
	assert_int_equal(b, 64ULL << 10);
	assert_int_equal(num_parse_size("512", &b), 0);
	assert_int_equal(b, 512);
	assert_int_equal(num_parse_size("4Q", &b), -EINVAL);
	assert_int_equal(num_parse_size("-4M", &b), -EINVAL);
	assert_int_equal(num_parse_size("99999999999t", &b), -ERANGE);
}

#define TOKEN "0123456789abcdef0123456789abcdef"

static const char *const colours[] = { "red", "green", NULL };

static const struct query_param q_full[] = {
	{ .key = "limit", .type = QUERY_INT, .min = 1, .max = 500 },
	{ .key = "dry_run", .type = QUERY_BOOL },
	{ .key = "state", .type = QUERY_ENUM, .choices = colours },
	{ .key = "device", .type = QUERY_TEXT },
	{ .key = "label.", .type = QUERY_PREFIX },
	{ .key = NULL },
};

/* Echo what the handler read through the accessors: it only runs on a checked query. */
static void echo(void *app, const struct http_req *req, struct http_resp *resp)
{
	const char *label = NULL;
	char *body;
	int i;

	for (i = 0; i < req->n_query; i++)
		if (!strncmp(req->query[i].key, "label.", 6))
			label = req->query[i].value;
	body = malloc(512);
	snprintf(body, 512,
	         "{\"limit\":%lld,\"dry_run\":%s,\"state\":\"%s\",\"device\":\"%s\","
	         "\"label\":\"%s\"}",
	         http_query_int(req, "limit", 50),
	         http_query_bool(req, "dry_run", false) ? "true" : "false",
	         http_query(req, "state") ? http_query(req, "state") : "",
	         http_query(req, "device") ? http_query(req, "device") : "", label ? label : "");
	resp->status = 200;
	http_body_take(resp, body, "application/json");
}

static const struct route routes[] = {
	{ "GET", "/t", echo, ROUTE_PUBLIC, q_full },
	{ "PATCH", "/t", echo, ROUTE_PUBLIC, q_full },
	{ "GET", "/none", echo, ROUTE_PUBLIC, NULL },
	{ "GET", "/private", echo, 0, q_full },
};

struct answer {
	int status;
	char body[2048];
	char code[64];
};

/* A socket connected to 127.0.0.1:port. */
static int conn_open(uint16_t port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* One request over a fresh connection; fills status, body and the error code if any. */
static void req(uint16_t port, const char *method, const char *target, const char *token,
                struct answer *a)
{
	char buf[8192], *p;
	size_t used = 0;
	ssize_t n;
	int fd = conn_open(port);
	json_t *o;

	n = snprintf(buf, sizeof(buf),
	             "%s %s HTTP/1.0\r\nHost: x\r\n%s%s%sContent-Length: 0\r\n\r\n", method, target,
	             token ? "Authorization: Bearer " : "", token ? token : "",
	             token ? "\r\n" : "");
	assert_int_equal(write(fd, buf, (size_t)n), n);
	while ((n = read(fd, buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)n;
	buf[used] = '\0';
	close(fd);
	assert_int_equal(sscanf(buf, "HTTP/1.%*d %d", &a->status), 1);
	p = strstr(buf, "\r\n\r\n");
	snprintf(a->body, sizeof(a->body), "%s", p ? p + 4 : "");
	a->code[0] = '\0';
	o = json_loads(a->body, 0, NULL);
	if (!o)
		fail_msg("%s %s: body is not JSON: %s", method, target, a->body);
	if (json_is_string(json_object_get(json_object_get(o, "error"), "code")))
		snprintf(a->code, sizeof(a->code), "%s",
		         json_string_value(json_object_get(json_object_get(o, "error"), "code")));
	json_decref(o);
}

static void expect(uint16_t port, const char *target, int status, const char *code,
                   const char *msg_part)
{
	struct answer a;

	req(port, "GET", target, NULL, &a);
	if (a.status != status || strcmp(a.code, code) || (msg_part && !strstr(a.body, msg_part)))
		fail_msg("GET %s: %d %s, want %d %s (%s)", target, a.status, a.body, status, code,
		         msg_part ? msg_part : "");
}

/* A server config on 127.0.0.1, an ephemeral port, routes and TOKEN; the rest default. */
static void cfg_init(struct httpd_config *cfg, const struct route *table, int n_routes)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->listen = "127.0.0.1:0";
	cfg->routes = table;
	cfg->n_routes = n_routes;
	cfg->token = TOKEN;
}

static void test_strict_query(void **state)
{
	struct httpd_config cfg;
	struct httpd *h;
	struct answer a;
	struct err e;
	char *web = tu_tmpdir(), target[512];
	uint16_t port;
	int i, n;

	tu_write(web, "index.html", "<!doctype html>\n", 0644);
	cfg_init(&cfg, routes, (int)(sizeof(routes) / sizeof(routes[0])));
	cfg.web_root = web;
	assert_int_equal(httpd_start(&h, &cfg, &e), 0);
	port = httpd_port(h);

	/* Declared keys, decoded, read through the accessors. */
	req(port, "GET", "/t?limit=5&dry_run=true&state=red&device=a%20b+c&label.rack=r%2F1", NULL,
	    &a);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body, "{\"limit\":5,\"dry_run\":true,\"state\":\"red\","
	                            "\"device\":\"a b c\",\"label\":\"r/1\"}");
	expect(port, "/t", 200, "", "\"limit\":50");
	expect(port, "/t?dry_run=false", 200, "", "\"dry_run\":false");
	req(port, "PATCH", "/t?dry_run=true", NULL, &a);
	assert_int_equal(a.status, 200);

	/* Unknown keys name themselves and what the route takes. */
	expect(port, "/t?bogus=1", 400, "unknown_query_param",
	       "unknown query parameter 'bogus': GET /t takes limit, dry_run, state, device, "
	       "label.KEY");
	expect(port, "/none?dry_run=true", 400, "unknown_query_param", "GET /none takes none");
	expect(port, "/t?label.=1", 400, "unknown_query_param", "'label.'");
	expect(port, "/t?dry_run", 400, "bad_request", "dry_run: expected true or false, got ''");
	/* A bad escape, a repeat, too many. */
	expect(port, "/t?limit=%zz", 400, "bad_request", "bad percent-escape");
	expect(port, "/t?limit=%00", 400, "bad_request", "bad percent-escape");
	expect(port, "/t?limit=1&limit=2", 400, "bad_request", "'limit' given more than once");
	expect(port, "/t?label.a=1&label.a=2", 400, "bad_request", "given more than once");
	n = snprintf(target, sizeof(target), "/t?");
	for (i = 0; i < 33; i++)
		n += snprintf(target + n, sizeof(target) - (size_t)n, "%slabel.k%d=1", i ? "&" : "",
		              i);
	expect(port, target, 400, "bad_request", "more than 32");
	/* Types: strict decimal within range, true/false, one of the choices. */
	expect(port, "/t?limit=0", 400, "bad_request",
	       "limit: expected an integer in 1..500, got '0'");
	expect(port, "/t?limit=501", 400, "bad_request", "1..500");
	expect(port, "/t?limit=010", 400, "bad_request", "got '010'");
	expect(port, "/t?limit=%2B5", 400, "bad_request", "got '+5'");
	expect(port, "/t?limit=5x", 400, "bad_request", "got '5x'");
	expect(port, "/t?dry_run=yes", 400, "bad_request",
	       "dry_run: expected true or false, got 'yes'");
	expect(port, "/t?dry_run=1", 400, "bad_request", "got '1'");
	expect(port, "/t?state=blue", 400, "bad_request", "state: 'blue' is not one of red, green");
	/* Bytes that are not printable ASCII still give a JSON error. */
	expect(port, "/t?%FF%FE=1", 400, "unknown_query_param",
	       "'?"
	       "?'");
	/* The token is checked before the query. */
	req(port, "GET", "/private?bogus=1", NULL, &a);
	assert_int_equal(a.status, 401);
	req(port, "GET", "/private?bogus=1", TOKEN, &a);
	assert_int_equal(a.status, 400);
	assert_string_equal(a.code, "unknown_query_param");
	/* Static files ignore queries (cache-busters). */
	{
		struct sockaddr_in sin;
		char buf[2048];
		size_t used = 0;
		ssize_t r;
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		const char *rq = "GET /index.html?v=123&v=124 HTTP/1.0\r\n\r\n";

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(port);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
		assert_int_equal(write(fd, rq, strlen(rq)), (ssize_t)strlen(rq));
		while ((r = read(fd, buf + used, sizeof(buf) - 1 - used)) > 0)
			used += (size_t)r;
		buf[used] = '\0';
		close(fd);
		assert_non_null(strstr(buf, " 200 "));
		assert_non_null(strstr(buf, "<!doctype html>"));
	}
	httpd_stop(h);
	tu_rmrf(web);
	free(web);
}

/* Every error is JSON: a message quoting bytes that are not UTF-8 (a path segment %ff, a name
 * cut in the middle of a character) still gives a body jansson reads back. */
static void test_error_utf8(void **state)
{
	struct http_resp resp = { 0 };
	json_error_t jerr;
	json_t *o;

	(void)state;
	http_error(&resp, 404, ERR_NOT_FOUND, "no such page '%s' (%.3s)", "\xff\xfe",
	           "\xc3\xa9\xc3\xa9");
	assert_int_equal(resp.status, 404);
	assert_non_null(resp.body);
	o = json_loads(resp.body, 0, &jerr);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "error"), "code")),
	                    "not_found");
	assert_string_equal(
	        json_string_value(json_object_get(json_object_get(o, "error"), "message")),
	        "no such page '\\xff\\xfe' (\xc3\xa9\\xc3)");
	json_decref(o);
	free(resp.body);
}

/* ---- held requests ---- */

#define HOLD_KEY 7

static atomic_int hold_ready; /* the "job" of the holding route has changed */
static atomic_int hold_runs;  /* handler runs of the holding route */

/* GET /hold?wait_s=N: "ready" once hold_ready is set, "over" when the wait ended first; until
 * then the request is held on HOLD_KEY. */
static void holding(void *app, const struct http_req *req, struct http_resp *resp)
{
	atomic_fetch_add(&hold_runs, 1);
	if (!atomic_load(&hold_ready) && !req->wait_over) {
		resp->wait_s = (double)http_query_int(req, "wait_s", 5);
		resp->wait_key = HOLD_KEY;
		return;
	}
	resp->status = 200;
	http_body_take(resp,
	               strdup(atomic_load(&hold_ready) ? "{\"r\":\"ready\"}" : "{\"r\":\"over\"}"),
	               "application/json");
}

static const struct query_param q_hold[] = {
	{ .key = "wait_s", .type = QUERY_INT, .min = 1, .max = 60 },
	{ .key = NULL },
};

static const struct route hold_routes[] = {
	{ "GET", "/hold", holding, ROUTE_PUBLIC, q_hold },
	{ "GET", "/now", echo, ROUTE_PUBLIC, NULL },
};

static struct httpd *hold_server_limited(unsigned conn_timeout_s, unsigned max_held,
                                         unsigned max_held_per_ip)
{
	struct httpd_config cfg;
	struct httpd *h;
	struct err e;

	cfg_init(&cfg, hold_routes, (int)(sizeof(hold_routes) / sizeof(hold_routes[0])));
	cfg.conn_timeout_s = conn_timeout_s;
	cfg.max_conns_per_ip = 256;
	cfg.max_held = max_held;
	cfg.max_held_per_ip = max_held_per_ip;
	atomic_store(&hold_ready, 0);
	atomic_store(&hold_runs, 0);
	assert_int_equal(httpd_start(&h, &cfg, &e), 0);
	return h;
}

/* The hold test server: up to 250 held from one address. */
static struct httpd *hold_server(unsigned conn_timeout_s)
{
	return hold_server_limited(conn_timeout_s, 0, 250);
}

/* Send raw (a whole request) and return the socket; the answer is read by recv_answer. */
static int send_raw(uint16_t port, const char *raw)
{
	int fd = conn_open(port);

	assert_int_equal(write(fd, raw, strlen(raw)), (ssize_t)strlen(raw));
	return fd;
}

/* Send GET target (with the token unless anonymous) and return the socket. */
static int send_get_as(uint16_t port, const char *target, bool anonymous)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "GET %s HTTP/1.0\r\nHost: x\r\n%s\r\n", target,
	         anonymous ? "" : "Authorization: Bearer " TOKEN "\r\n");
	return send_raw(port, buf);
}

/* With the token: anonymous requests are never held. */
static int send_get(uint16_t port, const char *target)
{
	return send_get_as(port, target, false);
}

/* Whether an answer is waiting on fd within ms milliseconds. */
static bool answer_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Read the whole answer (the server closes an HTTP/1.0 connection) and close fd. */
static void recv_answer(int fd, struct answer *a)
{
	char buf[4096], *p;
	size_t used = 0;
	ssize_t n;

	while ((n = read(fd, buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)n;
	buf[used] = '\0';
	close(fd);
	a->status = 0;
	sscanf(buf, "HTTP/1.%*d %d", &a->status);
	p = strstr(buf, "\r\n\r\n");
	snprintf(a->body, sizeof(a->body), "%s", p ? p + 4 : "");
}

/* Wait (up to 10 s) until the server holds n requests. */
static void held_wait(struct httpd *h, int n)
{
	int i;

	for (i = 0; i < 1000 && httpd_held(h) != n; i++)
		usleep(10 * 1000);
	assert_int_equal(httpd_held(h), n);
}

/* Wait (up to 10 s) until the holding route's handler has run n times. */
static void runs_wait(int n)
{
	int i;

	for (i = 0; i < 1000 && atomic_load(&hold_runs) < n; i++)
		usleep(10 * 1000);
	assert_true(atomic_load(&hold_runs) >= n);
}

static void test_hold_wake_and_timeout(void **state)
{
	struct httpd *h = hold_server(0);
	uint16_t port = httpd_port(h);
	struct answer a;
	double t0;
	int fd, runs;

	/* Held until a wake on its key; a wake on another key leaves it held. */
	fd = send_get(port, "/hold?wait_s=30");
	held_wait(h, 1);
	httpd_wake(h, HOLD_KEY + 1);
	assert_false(answer_ready(fd, 200));
	assert_int_equal(httpd_held(h), 1);
	/* A wake with nothing new runs the handler again, which holds it again. The request is
	 * counted held until the hold thread resumes it: wait for the run, then for it to be
	 * held again (held_wait alone could see it before the wake is processed). */
	runs = atomic_load(&hold_runs);
	httpd_wake(h, HOLD_KEY);
	runs_wait(runs + 1);
	held_wait(h, 1);
	assert_false(answer_ready(fd, 100));
	assert_true(atomic_load(&hold_runs) >= 2);
	atomic_store(&hold_ready, 1);
	httpd_wake(h, HOLD_KEY);
	assert_true(answer_ready(fd, 10000));
	recv_answer(fd, &a);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body, "{\"r\":\"ready\"}");
	held_wait(h, 0);

	/* Nothing happens: answered when the wait ends, not before. */
	atomic_store(&hold_ready, 0);
	t0 = time_mono_s();
	fd = send_get(port, "/hold?wait_s=1");
	recv_answer(fd, &a);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body, "{\"r\":\"over\"}");
	assert_true(time_mono_s() - t0 >= 0.9);
	held_wait(h, 0);
	httpd_stop(h);
}

/* 200 requests held on a server of at most 8 threads, each answered once woken; meanwhile
 * other requests are served at once: a held request holds no thread. Held longer than the
 * idle timeout (1 s), a request is not cut. */
#define MANY 200

static void test_hold_many_past_idle_timeout(void **state)
{
	struct httpd *h = hold_server(1);
	uint16_t port = httpd_port(h);
	struct answer a;
	int fds[MANY], i, fd;

	for (i = 0; i < MANY; i++)
		fds[i] = send_get(port, "/hold?wait_s=30");
	held_wait(h, MANY);
	for (i = 0; i < 5; i++) {
		fd = send_get(port, "/now");
		assert_true(answer_ready(fd, 10000));
		recv_answer(fd, &a);
		assert_int_equal(a.status, 200);
	}
	sleep(2); /* twice the idle timeout */
	held_wait(h, MANY);
	atomic_store(&hold_ready, 1);
	httpd_wake(h, HOLD_KEY);
	for (i = 0; i < MANY; i++) {
		recv_answer(fds[i], &a);
		assert_int_equal(a.status, 200);
		assert_string_equal(a.body, "{\"r\":\"ready\"}");
	}
	held_wait(h, 0);
	httpd_stop(h);
}

/* Issue 23 item 5: past --max-held / --max-held-per-ip a wait is answered 503 at once. */
static void test_hold_limits(void **state)
{
	struct httpd *h = hold_server_limited(0, 2, 200);
	struct answer a;
	int fds[2], fd, i;

	for (i = 0; i < 2; i++)
		fds[i] = send_get(httpd_port(h), "/hold?wait_s=30");
	held_wait(h, 2);
	fd = send_get(httpd_port(h), "/hold?wait_s=30");
	assert_true(answer_ready(fd, 5000));
	recv_answer(fd, &a);
	assert_int_equal(a.status, 503);
	assert_non_null(strstr(a.body, "\"code\":\"too_many_waits\""));
	assert_non_null(strstr(a.body, "--max-held)"));
	for (i = 0; i < 2; i++)
		close(fds[i]);
	held_wait(h, 0);
	httpd_stop(h);

	h = hold_server_limited(0, 100, 1);
	fds[0] = send_get(httpd_port(h), "/hold?wait_s=30");
	held_wait(h, 1);
	fd = send_get(httpd_port(h), "/hold?wait_s=30");
	assert_true(answer_ready(fd, 5000));
	recv_answer(fd, &a);
	assert_int_equal(a.status, 503);
	assert_non_null(strstr(a.body, "--max-held-per-ip"));
	close(fds[0]);
	httpd_stop(h);
}

/* A held request whose client went away stops counting at once, not at its deadline; an
 * anonymous one is never held. */
static void test_hold_departed_and_anonymous(void **state)
{
	struct httpd *h = hold_server(0);
	struct answer a;
	double t0;
	int fd;

	fd = send_get(httpd_port(h), "/hold?wait_s=60");
	held_wait(h, 1);
	t0 = time_mono_s();
	close(fd);
	held_wait(h, 0);
	assert_true(time_mono_s() - t0 < 5);
	t0 = time_mono_s();
	fd = send_get_as(httpd_port(h), "/hold?wait_s=30", true);
	assert_true(answer_ready(fd, 5000));
	recv_answer(fd, &a);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body, "{\"r\":\"over\"}");
	assert_true(time_mono_s() - t0 < 5);
	httpd_stop(h);
}

/* Issue 23 item 16: framing that leaves the body's end in doubt is refused before the body,
 * at once (an unknown coding no longer waits for the connection to close). */
static void test_framing_refused(void **state)
{
	static const struct {
		const char *headers;
		int status;
	} cases[] = {
		{ "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", 400 },
		{ "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", 400 },
		{ "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", 400 },
		{ "Transfer-Encoding: gzip\r\n", 501 },
		{ "Transfer-Encoding: gzip, chunked\r\n", 501 },
		{ "Content-Length: 5\r\nContent-Length: 5\r\n", 400 },
	};
	struct httpd *h = hold_server(0);
	char buf[512];
	struct answer a;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "POST /now HTTP/1.1\r\nHost: x\r\n%s\r\nhello",
		         cases[i].headers);
		fd = send_raw(httpd_port(h), buf);
		if (!answer_ready(fd, 3000))
			fail_msg("no answer within 3 s to %s", cases[i].headers);
		recv_answer(fd, &a); /* returns: the server closed the connection */
		if (a.status != cases[i].status)
			fail_msg("%s: %d, want %d", cases[i].headers, a.status, cases[i].status);
	}
	httpd_stop(h);
}

static void test_hold_answered_on_stop(void **state)
{
	struct httpd *h = hold_server(0);
	struct answer a;
	int fd;

	fd = send_get(httpd_port(h), "/hold?wait_s=60");
	held_wait(h, 1);
	httpd_stop(h); /* must not abort with a suspended connection */
	recv_answer(fd, &a);
	assert_int_equal(a.status, 503);
	assert_non_null(strstr(a.body, "\"code\":\"shutting_down\""));
}

/* At the connection limit (issue 31 item 12): idle connections that never sent a byte make
 * room, the oldest first, for new ones, so that requests with the token get through; a
 * connection serving an authenticated request (a held long-poll) is never the one closed. */
static void test_slots_make_room(void **state)
{
	struct httpd_config cfg;
	struct httpd *h;
	struct answer a;
	struct err e;
	int idle[40], held, i, closed = 0;
	char c;
	uint16_t port;

	(void)state;
	cfg_init(&cfg, hold_routes, (int)(sizeof(hold_routes) / sizeof(hold_routes[0])));
	cfg.max_conns = 16;
	cfg.max_conns_per_ip = 256;
	cfg.conn_timeout_s = 600; /* nothing here is closed for being idle */
	atomic_store(&hold_ready, 0);
	assert_int_equal(httpd_start(&h, &cfg, &e), 0);
	port = httpd_port(h);
	held = send_get(port, "/hold?wait_s=60");
	held_wait(h, 1);
	for (i = 0; i < 40; i++) {
		idle[i] = conn_open(port);
		usleep(5 * 1000);
	}
	usleep(300 * 1000);
	/* The owner's request, on a new connection, is answered. */
	for (i = 0; i < 5; i++) {
		req(port, "GET", "/now", TOKEN, &a);
		assert_int_equal(a.status, 200);
	}
	/* The oldest idle connections were closed to make room, not the held request. */
	for (i = 0; i < 40; i++)
		if (answer_ready(idle[i], 0) && read(idle[i], &c, 1) == 0)
			closed++;
	assert_true(closed >= 40 + 1 - 16);
	assert_true(httpd_slots_evicted(h) >= (unsigned long)closed);
	assert_false(answer_ready(held, 0));
	atomic_store(&hold_ready, 1);
	httpd_wake(h, HOLD_KEY);
	assert_true(answer_ready(held, 10000));
	recv_answer(held, &a);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body, "{\"r\":\"ready\"}");
	for (i = 0; i < 40; i++)
		close(idle[i]);
	httpd_stop(h);
}

static atomic_int slow_release;   /* the slow route's work may finish */
static atomic_int slow_on_worker; /* handler runs on the slow-work thread */

/* GET /slow: slow work; on the worker it waits until slow_release is set (a stalled mkfs). */
static void slowly(void *app, const struct http_req *req, struct http_resp *resp)
{
	if (!req->on_worker) {
		resp->slow = true;
		return;
	}
	atomic_fetch_add(&slow_on_worker, 1);
	while (!atomic_load(&slow_release))
		usleep(10 * 1000);
	resp->status = 200;
	http_body_take(resp, strdup("{\"r\":\"slow\"}"), "application/json");
}

static const struct route slow_routes[] = {
	{ "GET", "/slow", slowly, ROUTE_PUBLIC, NULL },
	{ "GET", "/now", echo, ROUTE_PUBLIC, NULL },
};

/* Sets slow_release 300 ms from now, from a thread of its own (while the test stops the server). */
static void *slow_release_later(void *arg)
{
	(void)arg;
	usleep(300 * 1000);
	atomic_store(&slow_release, 1);
	return NULL;
}

/* Slow work runs on its own thread (issue 31 item 8): with more stalled slow requests than the
 * HTTP threads, other requests are answered at once; past the queue, 503 busy at once; the
 * stalled ones are answered once their work ends; a stop does not wait on the queued ones. */
static void test_slow_work(void **state)
{
	struct httpd_config cfg;
	struct httpd *h;
	struct answer a;
	struct err e;
	int fds[HTTPD_SLOW_QUEUE_MAX + 2], i, n200 = 0;
	double t0;
	uint16_t port;
	pthread_t releaser;

	(void)state;
	cfg_init(&cfg, slow_routes, 2);
	cfg.max_conns_per_ip = 256;
	atomic_store(&slow_release, 0);
	atomic_store(&slow_on_worker, 0);
	assert_int_equal(httpd_start(&h, &cfg, &e), 0);
	port = httpd_port(h);
	/* One running, HTTPD_SLOW_QUEUE_MAX waiting: before, each would hold an HTTP thread. */
	for (i = 0; i < HTTPD_SLOW_QUEUE_MAX + 1; i++) {
		fds[i] = send_get(port, "/slow");
		if (i == 0)
			for (int k = 0; k < 500 && !atomic_load(&slow_on_worker); k++)
				usleep(10 * 1000);
	}
	assert_int_equal(atomic_load(&slow_on_worker), 1);
	usleep(200 * 1000);
	t0 = time_mono_s();
	req(port, "GET", "/now", NULL, &a);
	assert_int_equal(a.status, 200);
	assert_true(time_mono_s() - t0 < 1.0);
	/* The queue is full: the next slow one is refused at once. */
	fds[HTTPD_SLOW_QUEUE_MAX + 1] = send_get(port, "/slow");
	assert_true(answer_ready(fds[HTTPD_SLOW_QUEUE_MAX + 1], 2000));
	recv_answer(fds[HTTPD_SLOW_QUEUE_MAX + 1], &a);
	assert_int_equal(a.status, 503);
	assert_non_null(strstr(a.body, "\"busy\""));
	for (i = 0; i < HTTPD_SLOW_QUEUE_MAX + 1; i++)
		assert_false(answer_ready(fds[i], 0));
	/* The work comes back: every one is answered, one after another. */
	atomic_store(&slow_release, 1);
	for (i = 0; i < HTTPD_SLOW_QUEUE_MAX + 1; i++) {
		assert_true(answer_ready(fds[i], 5000));
		recv_answer(fds[i], &a);
		n200 += a.status == 200 && strstr(a.body, "slow") != NULL;
	}
	assert_int_equal(n200, HTTPD_SLOW_QUEUE_MAX + 1);
	assert_int_equal(atomic_load(&slow_on_worker), HTTPD_SLOW_QUEUE_MAX + 1);
	/* A stop with one running and one queued: the running one finishes, the queued one is
	 * not run, and the stop returns. */
	atomic_store(&slow_release, 0);
	fds[0] = send_get(port, "/slow");
	for (i = 0; i < 500 && atomic_load(&slow_on_worker) < HTTPD_SLOW_QUEUE_MAX + 2; i++)
		usleep(10 * 1000);
	fds[1] = send_get(port, "/slow");
	usleep(200 * 1000);
	/* The running one is released once the stop has begun: released before, the worker could
	 * take the queued one before the stop says so (a race the test used to lose under load). */
	assert_int_equal(pthread_create(&releaser, NULL, slow_release_later, NULL), 0);
	t0 = time_mono_s();
	httpd_stop(h);
	pthread_join(releaser, NULL);
	assert_true(time_mono_s() - t0 < 5.0);
	assert_int_equal(atomic_load(&slow_on_worker), HTTPD_SLOW_QUEUE_MAX + 2);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_token_equal),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_strict_query),
		cmocka_unit_test(test_error_utf8),
		cmocka_unit_test(test_hold_wake_and_timeout),
		cmocka_unit_test(test_hold_many_past_idle_timeout),
		cmocka_unit_test(test_hold_answered_on_stop),
		cmocka_unit_test(test_hold_limits),
		cmocka_unit_test(test_hold_departed_and_anonymous),
		cmocka_unit_test(test_framing_refused),
		cmocka_unit_test(test_slow_work),
		cmocka_unit_test(test_slots_make_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
