/* httpd_priv.h -- what the HTTP layer's libmicrohttpd files share (httpd.c, httpd_hold.c): the
 * server, each request's state, and the held-request calls. */
#ifndef FT_HTTPD_PRIV_H
#define FT_HTTPD_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "http/httpd.h"

struct MHD_Daemon;
struct MHD_Connection;

#define COUNTERS_MAX 512

struct httpd {
	struct MHD_Daemon *daemon;
	struct httpd_config cfg;
	atomic_uint_fast64_t next_id;
	uint16_t port;
	pthread_mutex_t stats_lock;
	struct http_counter counters[COUNTERS_MAX];
	int n_counters;
	/* libmicrohttpd logs every connection it refuses at a limit: repeats are counted, and
	 * the same message is printed at most once per MHD_LOG_REPEAT_S. */
	pthread_mutex_t log_lock;
	char log_last[256];
	double log_last_mono_s;
	unsigned long log_repeats;
	/* Held requests (long-polls, see http_resp): their connections are suspended, and one
	 * thread resumes them on a wake, at their deadline, or on shutdown. */
	pthread_mutex_t hold_lock;
	int hold_bell_fd;            /* eventfd: a wake, a newly held request, or stop */
	pthread_cond_t hold_drained; /* n_holding dropped to 0 */
	pthread_t hold_thread;
	bool hold_thread_started;
	struct conn_state *held; /* suspended now, in no order */
	int n_held;
	int n_holding;     /* held, or answering after a hold, until completed */
	uint64_t wake_seq; /* httpd_wake() calls so far */
	bool stopping;     /* held requests get 503 */
	bool hold_exit;    /* the hold thread is gone or going: nothing may be suspended */
	/* Slow work (http_resp.slow): requests waiting for the one slow-work thread, oldest first,
	 * their connections suspended (httpd_slow.c). */
	pthread_mutex_t slow_lock;
	pthread_cond_t slow_cond; /* a request queued, or stop */
	pthread_t slow_thread;
	bool slow_thread_started;
	bool slow_stop;
	struct conn_state *slow_head, *slow_tail;
	int n_slow;
	/* Every open connection's slot (httpd_slots.c), and what making room at the limit did. */
	pthread_mutex_t slots_lock;
	struct conn_slot *slots; /* in no order */
	unsigned n_slots;
	unsigned slots_room_at; /* past this many open connections, one is closed per new one */
	unsigned long slots_evicted, slots_evicted_logged;
	double slots_log_mono_s;
	/* The connection limits in force (after fitting RLIMIT_NOFILE). */
	unsigned int max_conns, max_conns_per_ip;
	unsigned max_held, max_held_per_ip; /* see httpd_config */
};

/*
 * A connection's slot (one per TCP connection, from libmicrohttpd's connection notifications,
 * not per request): whether a request is being served on it and whether it carried the
 * token, so that at the limit the connections that make room are the idle and the
 * unauthenticated ones, never one serving an authenticated request.
 */
struct conn_slot {
	int fd;
	bool busy;           /* a request is being served (held and slow ones too) */
	bool authed;         /* a request on it carried the right token */
	bool evicting;       /* shut down to make room: closing */
	double since_mono_s; /* opened, or its last request ended */
	struct conn_slot *prev, *next;
};

/* A client's address, to count its held requests. */
struct client_addr {
	int family; /* AF_INET, AF_INET6, 0 unknown */
	unsigned char addr[16];
};

/* Per-request state, freed in on_completed. */
struct conn_state {
	struct buf body;
	bool too_large;
	int n_content_length;    /* more than one: refused, whatever libmicrohttpd made of it */
	int n_transfer_encoding; /* Transfer-Encoding headers */
	bool te_chunked_only;    /* ... and each says exactly "chunked" */
	bool token_ok;           /* the request carries the right bearer token */
	struct client_addr client;
	/* A held request: */
	struct MHD_Connection *conn;
	struct conn_state *hold_prev, *hold_next; /* in h->held while suspended */
	uint64_t hold_key;
	double hold_deadline_mono_s; /* set when first held; 0: never held */
	bool hold_woken;             /* run the handler again */
	bool hold_over;              /* the deadline passed: the handler answers now */
	bool hold_stop;              /* the agent stops: answer 503 */
	bool hold_gone;              /* its client went away while it was held: close */
	int fd;                      /* the connection's socket, -1 unknown */
	/* Slow work (httpd_slow.c): */
	http_handler_fn slow_fn;      /* the handler to run on the slow-work thread */
	struct http_req slow_req;     /* its request (owns its args and query) */
	int slow_route;               /* for the counters */
	double slow_queued_mono_s;    /* when it was queued */
	struct conn_state *slow_next; /* in h's queue */
	bool slow_done;               /* slow_resp is its answer: send it */
	struct http_resp slow_resp;
};

enum hold_result {
	HOLD_OK,          /* suspended */
	HOLD_STOPPING,    /* the server stops: nothing may be held */
	HOLD_FULL,        /* max_held requests are held */
	HOLD_CLIENT_FULL, /* max_held_per_ip from this client address are held */
};

/* The client address of c, to count its holds. */
void httpd_client_of(struct MHD_Connection *c, struct client_addr *out);
/*
 * Suspend c until httpd_wake(key), the deadline set when it was first held, or shutdown; the
 * hold thread then resumes it and libmicrohttpd calls on_request again. seq is the wake count
 * read before the handler looked, so that a wake in between re-runs it at once. Anything but
 * HOLD_OK: not held, answer instead.
 */
enum hold_result httpd_hold(struct httpd *h, struct MHD_Connection *c, struct conn_state *cs,
                            const struct http_resp *resp, uint64_t seq);
/* The answer to a request that could not be held (r is not HOLD_OK). */
void httpd_hold_refused(struct httpd *h, enum hold_result r, struct http_resp *resp);
/* The hold thread (arg: the struct httpd), started by httpd_start. */
void *httpd_hold_main(void *arg);
/* Answer every held request 503, give the answers time to go out, end the hold thread. */
void httpd_holds_end(struct httpd *h);
/* The hold limits (see httpd_config): below the connection limits, whatever was asked. */
void httpd_holds_limit(struct httpd *h, unsigned max_conns, unsigned per_ip);

/* ---- connection slots (httpd_slots.c) ---- */

/* libmicrohttpd's connection notification (MHD_OPTION_NOTIFY_CONNECTION; cls: the httpd):
 * a slot per connection, and at the limit room made for the new one. */
void httpd_slots_notify(void *cls, struct MHD_Connection *c, void **socket_context, int toe);
/* How many connections may be open before each new one makes room (max_conns minus a reserve
 * that keeps a slot free in every HTTP thread). */
void httpd_slots_limit(struct httpd *h, unsigned max_conns, unsigned threads);
/* A request begins on c (authed: it carries the token) or ends. */
void httpd_slot_request(struct httpd *h, struct MHD_Connection *c, bool authed);
void httpd_slot_request_end(struct httpd *h, struct MHD_Connection *c);

/* ---- slow work (httpd_slow.c) ---- */

/* Start the slow-work thread (false: it could not be started; slow requests then get 503). */
bool httpd_slow_start(struct httpd *h);
/* Queue cs (its slow_fn, slow_req and slow_route set) for the slow-work thread and suspend c;
 * false when the queue is full or stopping (nothing suspended: answer 503 busy). */
bool httpd_slow_queue(struct httpd *h, struct MHD_Connection *c, struct conn_state *cs);
/* Free what a request handed to the slow-work thread still owns (its request's strings, an
 * answer not sent). */
void httpd_slow_release(struct conn_state *cs);
/* Before the daemon stops: the running slow request finishes, the queued ones are answered 503
 * "shutting_down", the thread ends. */
void httpd_slow_end(struct httpd *h);

#endif
