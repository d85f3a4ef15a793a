/* httpd.h -- the HTTP layer: libmicrohttpd glue, route table dispatch, auth,
 * body limits and static files (httpd.c), held requests (httpd_hold.c), slow work on a thread of
 * its own (httpd_slow.c) -- the only files that include microhttpd.h -- and the request helpers
 * handlers use (http.c). */
#ifndef FT_HTTPD_H
#define FT_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "protocol.h" /* JOB_WAIT_MAX_S */

#define HTTP_MAX_BODY (64 * 1024)
#define HTTP_MAX_ARGS 4
#define HTTP_MAX_QUERY 32

struct http_kv {
	char *key; /* decoded */
	char *value;
};

/* A request as handlers see it; all strings are owned by the HTTP layer. */
struct http_req {
	const char *method;
	const char *path;          /* as received (percent-encoded) */
	char *args[HTTP_MAX_ARGS]; /* decoded {captures} of the route pattern, in order */
	int n_args;
	struct http_kv query[HTTP_MAX_QUERY];
	int n_query;
	const char *body; /* NUL-terminated */
	size_t body_len;
	uint64_t id;    /* per-process request sequence number */
	bool wait_over; /* a held request (see http_resp.wait_s) whose wait has ended: answer now */
	bool on_worker; /* run again on the slow-work thread (see http_resp.slow): do the work now
	                 */
};

/*
 * A response; body and location are heap strings owned by the response.
 *
 * Long-poll: a handler with nothing new to say yet leaves status 0 and sets wait_s (> 0; at
 * most JOB_WAIT_MAX_S) and wait_key. The HTTP layer then holds the request without holding a
 * thread (libmicrohttpd suspends the connection) and runs the handler again after
 * httpd_wake(wait_key), or with req->wait_over set once wait_s have passed since the request
 * was first held; then the handler must answer. A held request is exempt from the idle
 * connection timeout. When the agent stops, held requests are answered 503 "shutting_down"
 * without running the handler.
 */
struct http_resp {
	int status;
	char *body;
	size_t body_len;
	const char *content_type; /* static; default application/json */
	char *location;
	bool close; /* close the connection after this answer */
	double wait_s;
	uint64_t wait_key;
	/* Slow work (a handler that would run a tool, such as mkfs's dry run): a handler that
	 * has not answered yet (status 0) sets slow, and the HTTP layer runs it again with
	 * req->on_worker set on its one slow-work thread, the connection suspended meanwhile, so
	 * that no HTTP thread waits on the tool and health and every other request stay quick.
	 * Slow requests wait their turn (HTTPD_SLOW_QUEUE_MAX at most; past it, or after
	 * HTTPD_SLOW_WAIT_MAX_S in the queue, they are answered 503 "busy"; when the agent stops,
	 * 503 "shutting_down"). The handler must answer on the worker. */
	bool slow;
};

#define HTTPD_SLOW_QUEUE_MAX 16
#define HTTPD_SLOW_WAIT_MAX_S 30.0

typedef void (*http_handler_fn)(void *app, const struct http_req *req, struct http_resp *resp);

#define ROUTE_PUBLIC 0x1  /* never needs a token */
#define ROUTE_METRICS 0x2 /* open under --public-metrics */
#define ROUTE_PRIVATE                                                                              \
	0x4 /* a GET that shows what --public-read does not open (the audit log                    \
	       with request origins, raw engine output): it needs the token                        \
	       unless --public-read-private */

/* What a query parameter's value must be. */
enum query_type {
	QUERY_TEXT,   /* anything (percent-decoded) */
	QUERY_INT,    /* a plain decimal integer in min..max */
	QUERY_BOOL,   /* "true" or "false" */
	QUERY_ENUM,   /* one of choices */
	QUERY_PREFIX, /* key is a prefix ("label."): every key that starts with it and goes on,
	                 with any value */
};

/* One query parameter a route takes. */
struct query_param {
	const char *key;
	enum query_type type;
	long long min, max;         /* QUERY_INT */
	const char *const *choices; /* QUERY_ENUM: NULL-terminated */
};

/*
 * One route. query lists the query parameters it takes (ended by a NULL key; NULL: none),
 * and the HTTP layer refuses every other request before the handler runs (after the token
 * check): an unknown key is 400 "unknown_query_param" naming the key and the ones the route
 * takes; a key given twice, a bad percent-escape, or a value of the wrong type (integers
 * strict decimal within range, booleans only true/false, enumerations one of their
 * choices) is 400 "bad_request". Static files ignore queries (browsers add cache-busters).
 */
struct route {
	const char *method;
	const char *pattern; /* "/api/v1/devices/{dev}/params/{name}" */
	http_handler_fn fn;
	unsigned flags;
	const struct query_param *query;
};

/* Per-route request counters by status, for /metrics. */
struct http_counter {
	int route; /* index into routes, -1 for "other" */
	int status;
	uint64_t n;
};

struct httpd_config {
	const char *listen;       /* "ADDR:PORT" or "[V6]:PORT"; port 0 = ephemeral */
	const char *tls_cert_pem; /* contents, not paths; both or neither */
	const char *tls_key_pem;
	const struct route *routes;
	int n_routes;
	void *app;
	const char *token;
	bool public_read;         /* GETs need no token, except ROUTE_PRIVATE ones */
	bool public_read_private; /* ... and those neither */
	bool public_metrics;
	const char *web_root; /* NULL: no static files */
	/* Connection limits (0: the HTTPD_DEFAULT_* value). A client (one IP address) holds at most
	 * max_conns_per_ip of the max_conns slots, so idle or slow connections from one host
	 * cannot lock others out; a connection idle for conn_timeout_s (no byte of a request
	 * header or body arrives, or a keep-alive connection waits) is closed; and near
	 * max_conns, idle and unauthenticated connections make room for new ones
	 * (httpd_slots_evicted), so that many hosts together cannot lock the owner out. */
	unsigned max_conns;
	unsigned max_conns_per_ip;
	unsigned conn_timeout_s;
	/* Held requests (long-polls; 0: the default): at most max_held at once (default
	 * max_conns / 2, at most 3/4 of it) and max_held_per_ip from one client address (default
	 * max_conns_per_ip / 2, at most max_conns_per_ip - 1), so that held requests never take
	 * the connections that health and other requests need; past them a request that would be
	 * held is answered 503 "too_many_waits" at once. Only requests with the bearer token are
	 * held: an anonymous one (--public-read) is answered at once as if its wait were over. A
	 * held request whose client goes away is dropped within HOLD_GONE_CHECK_S. */
	unsigned max_held;
	unsigned max_held_per_ip;
};

#define HTTPD_DEFAULT_MAX_CONNS 1024
#define HTTPD_DEFAULT_MAX_CONNS_PER_IP 128
#define HTTPD_DEFAULT_CONN_TIMEOUT_S 15

struct httpd;

/* Listen and serve. Raises the soft RLIMIT_NOFILE (and, as root, the hard one) to fit
 * max_conns plus the agent's own descriptors; where that is not allowed, the connection
 * limit is lowered to fit, with a warning. */
int httpd_start(struct httpd **out, const struct httpd_config *cfg, struct err *e);
uint16_t httpd_port(const struct httpd *h);
void httpd_stop(struct httpd *h);
/* Snapshot of the request counters; caller frees *out. */
int httpd_counters(struct httpd *h, struct http_counter **out);
/* Run the handlers of the requests held on key again (see http_resp). Thread-safe and quick:
 * it only marks them; the HTTP layer's hold thread resumes their connections. */
void httpd_wake(struct httpd *h, uint64_t key);
/* Requests held now (suspended, waiting for a wake or their deadline). */
int httpd_held(struct httpd *h);
/* Connections closed to make room at the connection limit since the start (httpd_slots.c):
 * when more than max_conns minus a reserve are open (the reserve keeps a slot free in every
 * HTTP thread), each new connection closes one that is idle or has not carried the token,
 * the longest idle first; one serving an authenticated request is never closed. */
unsigned long httpd_slots_evicted(struct httpd *h);
/* The connection limits in force: max_conns after fitting RLIMIT_NOFILE, and the share one
 * client address may hold. A held request keeps its connection's slot. */
void httpd_limits(const struct httpd *h, unsigned int *max_conns, unsigned int *per_ip);

/* ---- request and answer helpers, without libmicrohttpd (http.c) ---- */

/* Decoded query value, or NULL. Values a handler reads have passed its route's checks. */
const char *http_query(const struct http_req *r, const char *key);
/* A QUERY_INT value, or def when absent. */
long long http_query_int(const struct http_req *r, const char *key, long long def);
/* A QUERY_BOOL value, or def when absent. */
bool http_query_bool(const struct http_req *r, const char *key, bool def);
/* Check a request's query against rt->query as the dispatcher does; fills e ("bad_request" or
 * "unknown_query_param") and returns -EINVAL on the first problem. */
int http_query_check(const struct route *rt, const struct http_req *r, struct err *e);
/* Free r's decoded captures and query (the HTTP layer's, once a request is answered). */
void http_req_release(struct http_req *r);
/* Set resp to a JSON error {"error":{"code","message"}}. */
void http_error(struct http_resp *resp, int status, enum err_code code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Take ownership of a heap string as the body. */
void http_body_take(struct http_resp *resp, char *body, const char *content_type);
/* Percent-decode src into a fresh string; NULL on a bad escape or an embedded NUL. */
char *http_decode(const char *src, size_t len, bool plus_is_space);
/* Constant-time string compare. */
bool http_token_equal(const char *a, const char *b);
/* s for an error message: bytes outside printable ASCII become '?', at most len - 1 of them. */
void http_printable(const char *s, char *out, size_t len);
/* Match a percent-encoded path against a route pattern as the dispatcher does: 1 on a match
 * (r->args[0..n_args) hold the decoded {captures}; caller frees each), 0 on no match, -1 when
 * a captured segment is unsafe (bad escape, NUL, '/', "." or ".."). On 0 and -1 nothing is
 * left to free. */
int http_route_match(const char *pattern, const char *path, struct http_req *r);

#endif
