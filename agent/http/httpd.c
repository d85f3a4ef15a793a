/* httpd.c -- libmicrohttpd glue: routing by table, bearer auth, body limits, static files (held
 * requests are httpd_hold.c's, slow work httpd_slow.c's, the helpers without libmicrohttpd
 * http.c's). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bell.h"
#include "buf.h"
#include "http/httpd.h"
#include "http/httpd_priv.h"
#include "log.h"
#include "num.h"
#include "timeutil.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

#define MHD_LOG_REPEAT_S 10.0

static const char csp_header[] = "default-src 'self'; img-src 'self' data:; "
                                 "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/* Keep the URI as sent: we decode path segments and arguments ourselves,
 * after splitting, so "%2f" can never become a path separator. */
static size_t unescape_none(void *cls, struct MHD_Connection *c, char *s)
{
	return strlen(s);
}

/* The query of one request as it is collected, and the first problem with it. */
struct query_ctx {
	struct http_req *r;
	char problem[200]; /* "" while fine */
};

static enum MHD_Result query_collect(void *cls, enum MHD_ValueKind kind, const char *key,
                                     size_t key_size, const char *value, size_t value_size)
{
	struct query_ctx *q = cls;
	struct http_req *r = q->r;
	char raw[64], *k, *v;

	if (q->problem[0])
		return MHD_YES;
	if (r->n_query >= HTTP_MAX_QUERY) {
		snprintf(q->problem, sizeof(q->problem), "query: more than %d parameters",
		         HTTP_MAX_QUERY);
		return MHD_YES;
	}
	k = http_decode(key, key_size, true);
	v = http_decode(value ? value : "", value ? value_size : 0, true);
	if (!k || !v) {
		http_printable(k ? (value ? value : "") : key, raw, sizeof(raw));
		snprintf(q->problem, sizeof(q->problem),
		         "query: bad percent-escape (or an encoded NUL) in '%s'", raw);
		free(k);
		free(v);
		return MHD_YES;
	}
	r->query[r->n_query].key = k;
	r->query[r->n_query].value = v;
	r->n_query++;
	return MHD_YES;
}

static void count_request(struct httpd *h, int route, int status)
{
	int i;

	pthread_mutex_lock(&h->stats_lock);
	for (i = 0; i < h->n_counters; i++) {
		if (h->counters[i].route == route && h->counters[i].status == status) {
			h->counters[i].n++;
			goto out;
		}
	}
	if (h->n_counters < COUNTERS_MAX) {
		h->counters[h->n_counters].route = route;
		h->counters[h->n_counters].status = status;
		h->counters[h->n_counters].n = 1;
		h->n_counters++;
	}
out:
	pthread_mutex_unlock(&h->stats_lock);
}

int httpd_counters(struct httpd *h, struct http_counter **out)
{
	int n;

	pthread_mutex_lock(&h->stats_lock);
	n = h->n_counters;
	*out = xcalloc((size_t)n + 1, sizeof(**out));
	memcpy(*out, h->counters, (size_t)n * sizeof(**out));
	pthread_mutex_unlock(&h->stats_lock);
	return n;
}

/* Whether c carries 'Authorization: Bearer TOKEN' with the agent's token. */
static bool token_sent(struct httpd *h, struct MHD_Connection *c)
{
	const char *auth =
	        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);

	if (!auth || strncmp(auth, "Bearer ", 7))
		return false;
	return http_token_equal(auth + 7, h->cfg.token);
}

static bool authorized(struct httpd *h, bool token_ok, const char *method, const struct route *rt)
{
	if (token_ok)
		return true;
	if (rt && (rt->flags & ROUTE_PUBLIC))
		return true;
	if (rt && (rt->flags & ROUTE_METRICS) && (h->cfg.public_metrics || h->cfg.public_read))
		return true;
	/* --public-read opens the GET routes that show no secrets (ROUTE_PRIVATE ones stay
	 * behind the token unless --public-read-private). */
	if (h->cfg.public_read && !strcmp(method, "GET") &&
	    (!rt || !(rt->flags & ROUTE_PRIVATE) || h->cfg.public_read_private))
		return true;
	return false;
}

static enum MHD_Result send_resp(struct MHD_Connection *c, struct http_resp *resp, bool api)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(resp->body_len, resp->body ? resp->body : (char *)"",
	                                    resp->body ? MHD_RESPMEM_MUST_FREE
	                                               : MHD_RESPMEM_PERSISTENT);
	resp->body = NULL;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	                        resp->content_type ? resp->content_type : "application/json");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy", csp_header);
	if (api)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (resp->location)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, resp->location);
	if (resp->close)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (resp->status == 401)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		                        "Bearer realm=\"fleettune\"");
	ret = MHD_queue_response(c, (unsigned int)resp->status, r);
	MHD_destroy_response(r);
	free(resp->location);
	resp->location = NULL;
	return ret;
}

static const struct {
	const char *ext, *type;
} mime_types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".json", "application/json" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".txt", "text/plain; charset=utf-8" },
};

/* Serve web_root/path for GET; every segment must be a plain name. */
static void serve_static(struct httpd *h, const char *url, struct http_resp *resp)
{
	char rel[PATH_MAX], full[PATH_MAX];
	const char *type = "application/octet-stream", *dot;
	struct buf b = BUF_INIT;
	char *dec;
	size_t i;
	struct stat st;

	dec = http_decode(url, strlen(url), false);
	if (!dec || strstr(dec, "..") || strstr(dec, "//") || dec[0] != '/') {
		free(dec);
		http_error(resp, 400, ERR_BAD_REQUEST, "invalid path");
		return;
	}
	snprintf(rel, sizeof(rel), "%s", strcmp(dec, "/") ? dec + 1 : "index.html");
	free(dec);
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", h->cfg.web_root, rel) >= sizeof(full)) {
		http_error(resp, 404, ERR_NOT_FOUND, "path too long");
		return;
	}
	if (stat(full, &st) < 0 || !S_ISREG(st.st_mode) ||
	    buf_read_file(&b, full, 16 * 1024 * 1024) < 0) {
		buf_release(&b);
		http_error(resp, 404, ERR_NOT_FOUND, "no such page '/%.*s'", utf8_cut(rel, 128),
		           rel);
		return;
	}
	dot = strrchr(rel, '.');
	for (i = 0; dot && i < sizeof(mime_types) / sizeof(mime_types[0]); i++)
		if (!strcmp(dot, mime_types[i].ext))
			type = mime_types[i].type;
	resp->status = 200;
	resp->body_len = b.len;
	resp->body = buf_detach(&b, NULL);
	resp->content_type = type;
}

static void dispatch(struct httpd *h, struct MHD_Connection *c, const char *url, const char *method,
                     struct conn_state *cs, struct http_resp *resp, int *route_idx)
{
	struct http_req req;
	struct query_ctx qc;
	struct err qe;
	bool path_known = false;
	int i, m;

	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = url;
	req.id = atomic_fetch_add(&h->next_id, 1) + 1;
	req.wait_over = cs->hold_over;
	req.body = cs->body.data ? cs->body.data : "";
	req.body_len = cs->body.len;
	*route_idx = -1;
	if (cs->too_large) {
		http_error(resp, 413, ERR_TOO_LARGE, "request body is over %d bytes",
		           HTTP_MAX_BODY);
		return;
	}
	for (i = 0; i < h->cfg.n_routes; i++) {
		const struct route *rt = &h->cfg.routes[i];

		http_req_release(&req);
		req.n_args = 0;
		req.n_query = 0;
		m = http_route_match(rt->pattern, url, &req);
		if (m < 0) {
			http_error(resp, 400, ERR_BAD_REQUEST,
			           "invalid path segment (contains '/', '..', or NUL)");
			goto out;
		}
		if (!m)
			continue;
		path_known = true;
		if (strcmp(rt->method, method))
			continue;
		*route_idx = i;
		if (!authorized(h, cs->token_ok, method, rt)) {
			http_error(resp, 401, ERR_UNAUTHORIZED,
			           "missing or wrong bearer token (Authorization: Bearer TOKEN)");
			goto out;
		}
		qc.r = &req;
		qc.problem[0] = '\0';
		MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, query_collect, &qc);
		err_clear(&qe);
		if (qc.problem[0])
			http_error(resp, 400, ERR_BAD_REQUEST, "%s", qc.problem);
		else if (http_query_check(rt, &req, &qe))
			http_error(resp, 400, qe.code, "%s", qe.msg);
		else
			rt->fn(h->cfg.app, &req, resp);
		if (!resp->status && resp->slow) {
			/* Slow work: the request goes to the slow-work thread (httpd_slow.c). */
			cs->slow_fn = rt->fn;
			cs->slow_req = req;
			cs->slow_route = i;
			return;
		}
		goto out;
	}
	if (path_known)
		http_error(resp, 405, ERR_METHOD_NOT_ALLOWED, "%s is not allowed on %.*s", method,
		           utf8_cut(url, 200), url);
	else if (strncmp(url, "/api/", 5) && h->cfg.web_root && !strcmp(method, "GET"))
		serve_static(h, url, resp);
	else
		http_error(resp, 404, ERR_NOT_FOUND, "no route for %s %.*s", method,
		           utf8_cut(url, 200), url);
out:
	http_req_release(&req);
}

/* Counts the framing headers of a request (Content-Length, Transfer-Encoding). */
static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
	struct conn_state *cs = cls;

	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
		cs->n_content_length++;
	if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		if (cs->n_transfer_encoding++ == 0)
			cs->te_chunked_only = true;
		if (!value || strcasecmp(value, "chunked"))
			cs->te_chunked_only = false;
	}
	return MHD_YES;
}

/*
 * Where a request's body ends must be beyond doubt, or the request is refused before its body
 * is read (the connection is closed after the answer): two Content-Lengths (libmicrohttpd
 * 0.9.75 takes the first; a proxy in front may take the other), Transfer-Encoding together
 * with Content-Length (libmicrohttpd lets chunked win; a proxy may not), and any
 * Transfer-Encoding but one "chunked" (libmicrohttpd would read an unknown one until the
 * connection closes).
 */
static bool framing_ok(const struct conn_state *cs, struct http_resp *resp)
{
	if (cs->n_content_length > 1)
		http_error(
		        resp, 400, ERR_BAD_REQUEST,
		        "the request has %d Content-Length headers: its body cannot be told apart "
		        "from the next request",
		        cs->n_content_length);
	else if (cs->n_transfer_encoding && cs->n_content_length)
		http_error(resp, 400, ERR_BAD_REQUEST,
		           "the request has both Transfer-Encoding and Content-Length: its body "
		           "cannot be told apart from the next request; send one of them");
	else if (cs->n_transfer_encoding > 1)
		http_error(resp, 400, ERR_BAD_REQUEST,
		           "the request has %d Transfer-Encoding headers; send at most one "
		           "(chunked)",
		           cs->n_transfer_encoding);
	else if (cs->n_transfer_encoding && !cs->te_chunked_only)
		http_error(resp, 501, ERR_BAD_REQUEST,
		           "Transfer-Encoding: only 'chunked' is understood; send the body with "
		           "Content-Length or chunked");
	else
		return true;
	resp->close = true;
	return false;
}

void httpd_limits(const struct httpd *h, unsigned int *max_conns, unsigned int *per_ip)
{
	*max_conns = h->max_conns;
	*per_ip = h->max_conns_per_ip;
}

/* Count and send resp, the answer of route route_idx (-1: none) to url. */
static enum MHD_Result respond(struct httpd *h, struct MHD_Connection *c, const char *url,
                               int route_idx, struct http_resp *resp)
{
	enum MHD_Result ret;

	count_request(h, route_idx, resp->status);
	ret = send_resp(c, resp, !strncmp(url, "/api/", 5));
	free(resp->body);
	return ret;
}

/* Drop what a handler answered, to answer again. */
static void resp_clear(struct http_resp *resp)
{
	free(resp->body);
	free(resp->location);
	memset(resp, 0, sizeof(*resp));
}

/* A request's first call: its state (*con_cls), from its headers. A request whose body cannot
 * be delimited is answered now, before its body: the connection closes. */
static enum MHD_Result conn_start(struct httpd *h, struct MHD_Connection *c, const char *url,
                                  void **con_cls)
{
	struct conn_state *cs = xcalloc(1, sizeof(*cs));
	struct http_resp resp;
	const char *cl;
	uint64_t n;

	cs->fd = -1;
	*con_cls = cs;
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, cs);
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && num_parse_size(cl, &n) == 0 && n > HTTP_MAX_BODY)
		cs->too_large = true;
	cs->token_ok = token_sent(h, c);
	httpd_slot_request(h, c, cs->token_ok);
	httpd_client_of(c, &cs->client);
	memset(&resp, 0, sizeof(resp));
	if (framing_ok(cs, &resp))
		return MHD_YES;
	return respond(h, c, url, -1, &resp);
}

/* The request's answer from its route into resp; true when it went to the slow-work thread
 * or is held (answered later). */
static bool request_route(struct httpd *h, struct MHD_Connection *c, const char *url,
                          const char *method, struct conn_state *cs, struct http_resp *resp,
                          int *route_idx)
{
	enum hold_result rc_hold;
	uint64_t seq;

	pthread_mutex_lock(&h->hold_lock);
	seq = h->wake_seq;
	pthread_mutex_unlock(&h->hold_lock);
	dispatch(h, c, url, method, cs, resp, route_idx);
	if (cs->slow_fn) {
		resp_clear(resp);
		if (httpd_slow_queue(h, c, cs))
			return true;
		httpd_slow_release(cs);
		http_error(resp, 503, ERR_BUSY,
		           "the agent already has %d slow requests (mkfs dry runs) "
		           "waiting: ask "
		           "again later",
		           HTTPD_SLOW_QUEUE_MAX);
	}
	if (!resp->status && resp->wait_s > 0 && !cs->hold_over && !cs->token_ok) {
		/* Anonymous clients (--public-read) hold nothing: answered at once. */
		resp_clear(resp);
		cs->hold_over = true;
		dispatch(h, c, url, method, cs, resp, route_idx);
	}
	if (!resp->status && resp->wait_s > 0 && !cs->hold_over) {
		free(resp->body);
		free(resp->location);
		rc_hold = httpd_hold(h, c, cs, resp, seq);
		if (rc_hold == HOLD_OK)
			return true;
		httpd_hold_refused(h, rc_hold, resp);
	}
	return false;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
	struct httpd *h = cls;
	struct conn_state *cs = *con_cls;
	struct http_resp resp;
	int route_idx = -1;

	if (!cs)
		return conn_start(h, c, url, con_cls);
	if (cs->hold_gone)
		return MHD_NO; /* the client went away while held: close, nothing to answer */
	if (*upload_data_size) {
		if (!cs->too_large && cs->body.len + *upload_data_size > HTTP_MAX_BODY)
			cs->too_large = true;
		if (!cs->too_large)
			buf_append(&cs->body, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (cs->slow_done) {
		/* The slow-work thread's answer. */
		resp = cs->slow_resp;
		memset(&cs->slow_resp, 0, sizeof(cs->slow_resp));
		cs->slow_done = false;
		return respond(h, c, url, cs->slow_route, &resp);
	}
	memset(&resp, 0, sizeof(resp));
	if (cs->hold_stop)
		http_error(&resp, 503, ERR_SHUTTING_DOWN,
		           "the agent is shutting down; ask again once it is back");
	else if (request_route(h, c, url, method, cs, &resp, &route_idx))
		return MHD_YES;
	if (!resp.status)
		http_error(&resp, 500, ERR_INTERNAL, "handler produced no response");
	return respond(h, c, url, route_idx, &resp);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	struct httpd *h = cls;
	struct conn_state *cs = *con_cls;

	httpd_slot_request_end(h, c);
	if (!cs)
		return;
	if (cs->hold_deadline_mono_s) {
		pthread_mutex_lock(&h->hold_lock);
		if (--h->n_holding == 0)
			pthread_cond_broadcast(&h->hold_drained);
		pthread_mutex_unlock(&h->hold_lock);
	}
	httpd_slow_release(cs);
	buf_release(&cs->body);
	free(cs);
	*con_cls = NULL;
}

/* libmicrohttpd's connection notifications go to the slots (httpd_slots.c). */
static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
	httpd_slots_notify(cls, c, socket_context, (int)toe);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct httpd *h = cls;
	unsigned long repeats;
	char msg[512];
	double now = time_mono_s();
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	pthread_mutex_lock(&h->log_lock);
	if (!strncmp(msg, h->log_last, sizeof(h->log_last) - 1) &&
	    now - h->log_last_mono_s < MHD_LOG_REPEAT_S) {
		h->log_repeats++;
		pthread_mutex_unlock(&h->log_lock);
		return;
	}
	repeats = h->log_repeats;
	snprintf(h->log_last, sizeof(h->log_last), "%s", msg);
	h->log_last_mono_s = now;
	h->log_repeats = 0;
	pthread_mutex_unlock(&h->log_lock);
	if (repeats)
		log_warn("http: (%lu more like the previous message)", repeats);
	log_warn("http: %s", msg);
}

/* Parse "A.B.C.D:PORT" or "[V6]:PORT" into a sockaddr. */
static int listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len, bool *v6,
                        struct err *e)
{
	char host[128];
	const char *colon;
	int64_t port;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(close - s - 1), s + 1);
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	}
	if (num_parse_i64(colon + 1, &port) || port < 0 || port > 65535)
		goto bad;
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*len = sizeof(*sin);
		*v6 = false;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*sin6);
		*v6 = true;
		return 0;
	}
bad:
	return err_set(e, -EINVAL, ERR_BAD_REQUEST,
	               "--listen '%s': expected ADDR:PORT (e.g. 127.0.0.1:7070 or [::1]:7070)", s);
}

/* The listening socket for ss, bound and listening here rather than inside libmicrohttpd, so
 * that a refusal names the address asked for and the kernel's reason ("cannot listen on
 * 127.0.0.1:7801: Address already in use"), not the port argument libmicrohttpd was given
 * (0, with MHD_OPTION_SOCK_ADDR). Returns the descriptor, or -errno with e filled. */
static int listen_open(const struct sockaddr_storage *ss, socklen_t sl, bool v6,
                       const char *listen_text, struct err *e)
{
	int fd, one = 1, rc;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_set(e, -errno, ERR_INTERNAL, "cannot listen on %s: socket: %s",
		               listen_text, strerror(errno));
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (v6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, sl) < 0) {
		rc = err_set(e, -errno, ERR_INTERNAL, "cannot listen on %s: %s", listen_text,
		             strerror(errno));
		goto fail;
	}
	if (listen(fd, 1024) < 0) {
		rc = err_set(e, -errno, ERR_INTERNAL, "cannot listen on %s: listen: %s",
		             listen_text, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return rc;
}

/* Close fd if it is still the socket with inode ino: libmicrohttpd may or may not have closed
 * a listening socket it was given when its start fails. */
static void listen_close_if_ours(int fd, ino_t ino)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == ino)
		close(fd);
}

/* Descriptors the agent needs besides its connections: the database, fio's pipes, sysfs
 * files, the listening socket, the daemon's epoll and signalling fds. */
#define HTTPD_FD_RESERVE 256

/* Make room for max_conns connections in RLIMIT_NOFILE; returns how many fit. */
static unsigned int fd_limit_fit(unsigned int max_conns)
{
	rlim_t need = (rlim_t)max_conns + HTTPD_FD_RESERVE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return max_conns;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		struct rlimit want = rl;

		want.rlim_cur = need;
		if (want.rlim_max != RLIM_INFINITY && want.rlim_max < need)
			want.rlim_max = need; /* root may raise the hard limit too */
		if (setrlimit(RLIMIT_NOFILE, &want) < 0 && rl.rlim_cur < rl.rlim_max) {
			want = rl;
			want.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &want);
		}
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		unsigned int fit = rl.rlim_cur > HTTPD_FD_RESERVE + 16
		                           ? (unsigned int)(rl.rlim_cur - HTTPD_FD_RESERVE)
		                           : 16;

		log_warn("--max-connections %u lowered to %u: the descriptor limit is %llu "
		         "(raise it, e.g. LimitNOFILE= in the systemd unit)",
		         max_conns, fit, (unsigned long long)rl.rlim_cur);
		return fit;
	}
	return max_conns;
}

/* Free what httpd_start made besides the daemon (gone already). */
static void httpd_free(struct httpd *h)
{
	httpd_holds_end(h);
	httpd_slow_end(h);
	pthread_cond_destroy(&h->slow_cond);
	pthread_mutex_destroy(&h->slow_lock);
	if (h->hold_bell_fd >= 0)
		close(h->hold_bell_fd);
	pthread_cond_destroy(&h->hold_drained);
	pthread_mutex_destroy(&h->hold_lock);
	pthread_mutex_destroy(&h->stats_lock);
	pthread_mutex_destroy(&h->log_lock);
	pthread_mutex_destroy(&h->slots_lock);
	free(h);
}

/* A new server's state for cfg: its locks, the hold thread and the slow-work thread. */
static struct httpd *httpd_new(const struct httpd_config *cfg)
{
	pthread_condattr_t mono;
	struct httpd *h = xcalloc(1, sizeof(*h));

	h->cfg = *cfg;
	pthread_mutex_init(&h->stats_lock, NULL);
	pthread_mutex_init(&h->log_lock, NULL);
	pthread_mutex_init(&h->hold_lock, NULL);
	pthread_mutex_init(&h->slots_lock, NULL);
	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	pthread_cond_init(&h->hold_drained, &mono);
	pthread_condattr_destroy(&mono);
	h->hold_bell_fd = bell_open();
	if (h->hold_bell_fd >= 0 && pthread_create(&h->hold_thread, NULL, httpd_hold_main, h) == 0)
		h->hold_thread_started = true;
	else
		h->hold_exit = true; /* long-polls are then answered 503 at once */
	pthread_mutex_init(&h->slow_lock, NULL);
	pthread_cond_init(&h->slow_cond, NULL);
	if (!httpd_slow_start(h))
		log_warn("http: no slow-work thread: mkfs dry runs are answered 503 busy");
	return h;
}

/* The server's threads and connection limits. */
struct httpd_limits {
	long ncpu;
	unsigned int max_conns, per_ip, timeout_s;
};

/*
 * A pool of ncpu threads, each with its own epoll set and its share (max_conns / ncpu) of
 * the slots. A thread whose share is taken stops accepting; when all are full, new
 * connections wait in the kernel's backlog until a slot frees. So slots must not be
 * hoarded: one address gets at most per_ip of them (the rest are accepted and closed at
 * once), and a connection that sends nothing for timeout_s loses its slot. Idle
 * connections cost no thread, only a descriptor and a little memory; so do held
 * requests (long-polls): their connections are suspended, out of the timeout's reach,
 * and resumed by the one hold thread.
 */
static void httpd_limits_set(struct httpd *h, const struct httpd_config *cfg,
                             struct httpd_limits *l)
{
	l->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (l->ncpu < 1)
		l->ncpu = 1;
	if (l->ncpu > 8)
		l->ncpu = 8;
	l->max_conns = fd_limit_fit(cfg->max_conns ? cfg->max_conns : HTTPD_DEFAULT_MAX_CONNS);
	if (l->max_conns < (unsigned int)l->ncpu)
		l->max_conns = (unsigned int)l->ncpu;
	l->per_ip = cfg->max_conns_per_ip ? cfg->max_conns_per_ip : HTTPD_DEFAULT_MAX_CONNS_PER_IP;
	if (l->per_ip > l->max_conns)
		l->per_ip = l->max_conns;
	l->timeout_s = cfg->conn_timeout_s ? cfg->conn_timeout_s : HTTPD_DEFAULT_CONN_TIMEOUT_S;
	httpd_holds_limit(h, l->max_conns, l->per_ip);
	httpd_slots_limit(h, l->max_conns, (unsigned)l->ncpu);
}

/* The daemon on the bound socket lfd (closed on a failure if it is still lfd's inode). */
static int httpd_daemon_start(struct httpd *h, int lfd, bool v6, const struct httpd_limits *l,
                              struct err *e)
{
	const struct httpd_config *cfg = &h->cfg;
	unsigned int flags =
	        MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
	struct MHD_OptionItem tls[3];
	struct stat lst;
	ino_t lino;

	if (v6)
		flags |= MHD_USE_IPv6;
	if (cfg->tls_cert_pem)
		flags |= MHD_USE_TLS;
	/* TLS only when asked: an empty option array otherwise. */
	tls[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cfg->tls_cert_pem };
	tls[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)cfg->tls_key_pem };
	tls[2] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	lino = fstat(lfd, &lst) == 0 ? lst.st_ino : 0;
	h->daemon = MHD_start_daemon(
	        flags, 0, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
	        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd, MHD_OPTION_THREAD_POOL_SIZE,
	        (unsigned int)l->ncpu, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
	        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, h, MHD_OPTION_UNESCAPE_CALLBACK,
	        unescape_none, h, MHD_OPTION_CONNECTION_TIMEOUT, l->timeout_s,
	        MHD_OPTION_CONNECTION_LIMIT, l->max_conns, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	        l->per_ip, MHD_OPTION_ARRAY, cfg->tls_cert_pem ? tls : tls + 2, MHD_OPTION_END);
	if (h->daemon)
		return 0;
	listen_close_if_ours(lfd, lino);
	/* The address is bound: what is left to fail is TLS or resources. */
	return err_set(e, -EINVAL, ERR_INTERNAL,
	               "cannot serve on %s: the HTTP server did not start%s (see the http: "
	               "lines above)",
	               cfg->listen, cfg->tls_cert_pem ? " (bad TLS key or certificate?)" : "");
}

int httpd_start(struct httpd **out, const struct httpd_config *cfg, struct err *e)
{
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	struct httpd_limits l;
	struct httpd *h = NULL;
	socklen_t sl = 0;
	bool v6 = false;
	int rc;

	rc = listen_parse(cfg->listen, &ss, &sl, &v6, e);
	if (rc)
		goto out;
	if (!!cfg->tls_cert_pem != !!cfg->tls_key_pem) {
		rc = err_set(e, -EINVAL, ERR_BAD_REQUEST, "--tls-cert and --tls-key go together");
		goto out;
	}
	h = httpd_new(cfg);
	httpd_limits_set(h, cfg, &l);
	rc = listen_open(&ss, sl, v6, cfg->listen, e);
	if (rc < 0)
		goto out;
	rc = httpd_daemon_start(h, rc, v6, &l, e);
	if (rc)
		goto out;
	info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : 0;
	h->max_conns = l.max_conns;
	h->max_conns_per_ip = l.per_ip;
	log_info("http: %ld threads, at most %u connections, %u per client address, %u s idle "
	         "timeout; at most %u held requests, %u per client address",
	         l.ncpu, l.max_conns, l.per_ip, l.timeout_s, h->max_held, h->max_held_per_ip);
	*out = h;
	h = NULL;
out:
	if (h)
		httpd_free(h);
	return rc;
}

uint16_t httpd_port(const struct httpd *h)
{
	return h->port;
}

void httpd_stop(struct httpd *h)
{
	if (!h)
		return;
	httpd_holds_end(h);
	httpd_slow_end(h);
	MHD_stop_daemon(h->daemon);
	httpd_free(h);
}
