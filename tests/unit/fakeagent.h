/* fakeagent.h -- a canned fleettune agent on 127.0.0.1 for controller unit tests: answers
 * with a test's handler and records every request it gets. */
#ifndef FT_FAKEAGENT_H
#define FT_FAKEAGENT_H

#include <pthread.h>
#include <stdbool.h>

#include "buf.h"
#include "fleet/client.h"

#define FAKE_REQS_MAX 1024

struct fake_req {
	char method[8];
	char path[256]; /* with the query string */
	char *body;     /* NUL-terminated, "" when none */
	char *head;     /* the request line and the headers as sent, each line ending "\r\n" */
};

struct fake_agent;

/* Answer one request: fill out with the response body and return the HTTP status. */
typedef int (*fake_handler)(struct fake_agent *a, const struct fake_req *r, struct buf *out);

struct fake_agent {
	/* set by the test */
	fake_handler handle; /* NULL: fake_agent_default */
	const char *node;    /* health's node name */
	const char *version; /* health's version */
	bool old;            /* health without "features" (an agent before dry runs) */
	const char *device;  /* the one device listed, writable */
	const char *device2; /* a second one (NULL: none) */
	bool lanes;          /* health lists "device_lanes" (jobs on two devices run at once) */
	bool fio_file;       /* health lists "fio_file" (a job may be an fio job file's text) */
	void *ctx;           /* for the handler */
	/* set by fake_agent_start */
	int port;
	char url[64];
	/* recorded, under lock */
	pthread_mutex_t lock;
	int nreqs;
	struct fake_req reqs[FAKE_REQS_MAX];
	/* private */
	int fd;
	pthread_t thread;
};

/* Answer r as the agent's handler does (out: the body; returns the status) and record it (r's
 * body and head are taken over). What the socket and the in-process fleet both do. */
int fake_agent_answer(struct fake_agent *a, struct fake_req *r, struct buf *out);

/* Listen on an ephemeral port and serve one connection at a time in a thread. */
void fake_agent_start(struct fake_agent *a);
/* Stop serving (the port refuses connections afterwards) and free the records. */
void fake_agent_stop(struct fake_agent *a);
/* Serve in-process, with no socket, at url (the plan's node URL, e.g. "http://h:1"), for a
 * fake_fleet to answer. fake_agent_stop frees the records. */
void fake_agent_inproc(struct fake_agent *a, const char *url);

/*
 * A fleet of canned agents in-process, through the controller's transport seam
 * (fleet/client.h): each request is answered by the handler of the agent whose url begins its
 * URL, on the caller's thread, and recorded as over HTTP; one no agent's url begins is a
 * transport failure ("connection refused"), as are the requests to an agent while down.
 */
struct fake_fleet {
	struct client_transport t; /* fleet_transport_set(&f, &ff.t) */
	struct fake_agent **agents;
	bool *down; /* per agent: its requests fail at the transport */
	int n;
};
void fake_fleet_init(struct fake_fleet *ff, struct fake_agent **agents, int n);
void fake_fleet_release(struct fake_fleet *ff);

/* Health and devices as the fields say; 404 for anything else. */
int fake_agent_default(struct fake_agent *a, const struct fake_req *r, struct buf *out);
/* How many requests had this method and a path starting with prefix. */
int fake_agent_count(struct fake_agent *a, const char *method, const char *prefix);

#endif
