/* client.h -- HTTP to the agents: one libcurl multi handle, timeouts, bounded retries. */
#ifndef FT_CLIENT_H
#define FT_CLIENT_H

#include <stdbool.h>

#include "buf.h"

/* One request. Fill the "in" fields; client_run() fills the "out" fields. */
struct client_req {
	/* in */
	const char *method; /* GET, POST, PATCH, PUT, DELETE */
	char *url;          /* owned by the request (freed by client_req_release) */
	char *body;         /* JSON, owned; NULL for none */
	const char *token;  /* bearer token, borrowed; NULL for none */
	bool skip;          /* leave this slot alone (e.g. a dropped node) */
	double timeout_s;   /* bound of each attempt; 0: the client's (a long-poll sets more) */
	size_t max_bytes;   /* the longest answer taken; a longer one ends the request as a
	                       failure (no retry) while it arrives; 0: CLIENT_ANSWER_MAX */
	const char *peer;   /* who answers, for messages ("node 'n1'"), borrowed; may be NULL */
	/* out */
	int rc;           /* 0, or -errno style transport failure (status 0) */
	long status;      /* HTTP status, 0 when no response arrived */
	struct buf resp;  /* response body */
	char error[256];  /* transport error text when rc < 0 */
	double elapsed_s; /* wall time of the last attempt */
	/* The last attempt's answer was made between these two readings of the wall clock (epoch
	 * s): not before the request had been sent, not after its first byte came back (from
	 * libcurl's own timings). 0 when no answer came. A bound on the clock offset of the peer
	 * that stamps its answer with its time. */
	double answered_after, answered_before;
	bool too_large; /* the answer passed max_bytes: rc < 0, error says so */
	/* private */
	void *easy;
	void *headers;
	int attempts;
	bool pending_retry;
	double started_at;             /* monotonic, of the current attempt */
	double started_wall;           /* the same, on the wall clock */
	double retry_at;               /* monotonic, when pending_retry */
	struct client_req *retry_next; /* in the client's list of retries, when pending_retry */
};

struct client;

/* The longest answer a request takes when it sets no max_bytes. */
#define CLIENT_ANSWER_MAX (64u << 20)

/*
 * timeout_s bounds each attempt (connect timeout is min(timeout_s, 3 s)).
 * retries: further attempts after a transport failure (connection refused,
 * reset, timeout) or a 502/503/504, with 100 ms doubling backoff. A POST is
 * retried only when the connection could not be made, so a job is never
 * started twice. npeers: the hosts it will talk to; it keeps an idle connection to each
 * for reuse (at least CLIENT_CONNECTIONS_KEPT). Caller has ownership of the result
 * (client_free).
 */
struct client *client_new(double timeout_s, int retries, int npeers);
/* Idle connections a client keeps for reuse at the least. */
#define CLIENT_CONNECTIONS_KEPT 1024
/* Requests client_run() has under way at once, as `curl --parallel-max 32` and pdsh's
 * fan-out: 1 024 at once made `apply` to 1 024 agents on 2 cores 0.67 s, 32 at a time 0.58 s
 * (bench/fanout.sh). The requests an agent holds (long-polls, client_start) are not counted. */
#define CLIENT_PARALLEL_MAX 32
/* Keep up to n idle connections open for reuse (libcurl's connection cache): one per agent of
 * the fleet, so that no round of requests reconnects because the cache was full. */
void client_connections_keep(struct client *c, long n);
void client_free(struct client *c);
/* Run reqs[0..n) concurrently to completion, at most CLIENT_PARALLEL_MAX under way at once (in
 * order: the next starts as one ends). Returns 0; per-request outcome in rc/status. */
int client_run(struct client *c, struct client_req *reqs, int n);
/*
 * The same, one request at a time, for requests that end at different times (long-polls).
 * client_start() begins r (its "out" fields reset); r must stay where it is until it ends or
 * is aborted. client_wait() drives every started request for up to max_s and returns at once
 * when some ended (after their retries): up to ndone of them into done, their count as the
 * result; 0 when none did in max_s or nothing is started. client_abort() drops a started
 * request that has not ended. Do not mix with client_run() on one client.
 */
void client_start(struct client *c, struct client_req *r);
int client_wait(struct client *c, double max_s, struct client_req **done, int ndone);
void client_abort(struct client *c, struct client_req *r);
/*
 * Another transport than HTTP, the seam by which unit tests put a fleet in-process (as the
 * agent takes --sysfs-root and --fio): answer(ctx, r) fills r's "out" fields (status and resp,
 * or rc < 0 and error) for r's method, url, body and token, on the caller's thread. A client
 * given one answers every request it starts through it, in the order started, when
 * client_wait (or client_run) drives them; no retries, no connections. NULL: HTTP (libcurl).
 * t must outlive c.
 */
struct client_transport {
	void (*answer)(void *ctx, struct client_req *r);
	void *ctx;
};
void client_transport_set(struct client *c, const struct client_transport *t);
/* Attempts ended so far and the new connections they opened (the rest reused one). */
void client_counts(const struct client *c, long *attempts, long *connects);
/* Prepare r (zeroed) for method and a heap url (taken over); body may be NULL (taken over). */
void client_req_init(struct client_req *r, const char *method, char *url, char *body,
                     const char *token);
/* Free url, body and response. */
void client_req_release(struct client_req *r);
/* "HTTP 422" / "connection refused" style description of a failed request into out. */
void client_req_describe(const struct client_req *r, char *out, size_t len);

#endif
