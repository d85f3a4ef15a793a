/* test_ctl_client.c -- the libcurl multi client against a tiny local HTTP server: parallel
 * requests (at most CLIENT_PARALLEL_MAX at once), retries on 503 and refused connections, no retry
 * of a POST, timeouts, requests waited for one by one. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fleet/client.h"
#include "testutil.h"
#include "timeutil.h"
#include "xmalloc.h"

/* Server behaviour per connection: reply after delay_ms with status (0: never reply). */
struct server {
	int fd;
	int port;
	int delay_ms;
	int first_status; /* status of the first request, later ones get 200 */
	int silent;       /* accept and never answer */
	int keepalive;    /* answer every request of a connection, keeping it open */
	int requests;
	int busy, busy_max; /* keepalive: requests being answered now, and the most at once */
	pthread_mutex_t lock;
};

static void *conn_main(void *arg)
{
	void **a = arg;
	struct server *s = a[0];
	int c = (int)(long)a[1], n, status;
	char req[4096], resp[256];

	free(a);
	if (s->keepalive) {
		/* One GET per read (the client sends one request at a time on a connection). */
		while ((n = (int)read(c, req, sizeof(req) - 1)) > 0) {
			pthread_mutex_lock(&s->lock);
			if (++s->busy > s->busy_max)
				s->busy_max = s->busy;
			pthread_mutex_unlock(&s->lock);
			usleep((useconds_t)s->delay_ms * 1000);
			pthread_mutex_lock(&s->lock);
			s->busy--;
			pthread_mutex_unlock(&s->lock);
			snprintf(resp, sizeof(resp),
			         "HTTP/1.1 200 X\r\nContent-Type: application/json\r\n"
			         "Content-Length: 11\r\n\r\n{\"ok\":true}");
			if (write(c, resp, strlen(resp)) < 0)
				break;
		}
		close(c);
		return NULL;
	}
	n = (int)read(c, req, sizeof(req) - 1);
	if (n <= 0 || s->silent) {
		sleep(2);
		close(c);
		return NULL;
	}
	pthread_mutex_lock(&s->lock);
	status = s->requests++ == 0 && s->first_status ? s->first_status : 200;
	pthread_mutex_unlock(&s->lock);
	usleep((useconds_t)s->delay_ms * 1000);
	snprintf(resp, sizeof(resp),
	         "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
	         "Connection: close\r\n\r\n{\"ok\":true}",
	         status);
	if (write(c, resp, strlen(resp)) < 0)
		perror("write");
	close(c);
	return NULL;
}

static void *server_main(void *arg)
{
	struct server *s = arg;

	for (;;) {
		int c = accept(s->fd, NULL, NULL);
		pthread_t t;
		void **a;

		if (c < 0)
			return NULL;
		a = xmalloc(2 * sizeof(void *));
		a[0] = s;
		a[1] = (void *)(long)c;
		pthread_create(&t, NULL, conn_main, a);
		pthread_detach(t);
	}
}

static void server_start(struct server *s)
{
	struct sockaddr_in sa = { 0 };
	socklen_t len = sizeof(sa);
	pthread_t t;

	pthread_mutex_init(&s->lock, NULL);
	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s->fd, 128), 0);
	getsockname(s->fd, (struct sockaddr *)&sa, &len);
	s->port = ntohs(sa.sin_port);
	pthread_create(&t, NULL, server_main, s);
	pthread_detach(t);
}

static char *url(int port)
{
	return xasprintf("http://127.0.0.1:%d/api/v1/health", port);
}

static void test_parallel(void **state)
{
	static struct server s = { .delay_ms = 200 };
	struct client *c = client_new(5, 2, 0);
	struct client_req r[20];
	double t0;
	int i;

	(void)state;
	server_start(&s);
	for (i = 0; i < 20; i++)
		client_req_init(&r[i], "GET", url(s.port), NULL, "tok");
	t0 = time_mono_s();
	client_run(c, r, 20);
	/* 20 requests of 200 ms each: in parallel, far below the 4 s a loop would take. */
	assert_true(time_mono_s() - t0 < 1.5);
	for (i = 0; i < 20; i++) {
		assert_int_equal(r[i].rc, 0);
		assert_int_equal(r[i].status, 200);
		assert_string_equal(r[i].resp.data, "{\"ok\":true}");
		client_req_release(&r[i]);
	}
	client_free(c);
}

static void test_retry_503_get_not_post(void **state)
{
	static struct server s = { .first_status = 503 }, p = { .first_status = 503 };
	struct client *c = client_new(5, 2, 0);
	struct client_req r;

	(void)state;
	server_start(&s);
	client_req_init(&r, "GET", url(s.port), NULL, NULL);
	client_run(c, &r, 1);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.attempts, 2);
	client_req_release(&r);
	/* A POST that reached the server is never sent twice. */
	server_start(&p);
	client_req_init(&r, "POST", url(p.port), xstrdup("{}"), NULL);
	client_run(c, &r, 1);
	assert_int_equal(r.status, 503);
	assert_int_equal(r.attempts, 1);
	client_req_release(&r);
	client_free(c);
}

static void test_refused_and_timeout(void **state)
{
	static struct server s = { .silent = 1 };
	struct client *c = client_new(0.3, 2, 0);
	struct client_req r[2];
	char d[300];
	int closed;

	(void)state;
	/* A port nobody listens on: bind, read the port, close (no accept thread, so the
	 * fd number can be reused by the next socket safely). */
	{
		struct sockaddr_in sa = { 0 };
		socklen_t len = sizeof(sa);
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		getsockname(fd, (struct sockaddr *)&sa, &len);
		closed = ntohs(sa.sin_port);
		close(fd);
	}
	server_start(&s);
	client_req_init(&r[0], "POST", url(closed), xstrdup("{}"), NULL);
	client_req_init(&r[1], "GET", url(s.port), NULL, NULL);
	client_run(c, r, 2);
	/* Refused connections are retried, even for POST (nothing was sent). */
	assert_true(r[0].rc < 0);
	assert_int_equal(r[0].attempts, 3);
	assert_non_null(strstr(r[0].error, "after 3 attempts"));
	assert_true(r[1].rc < 0);
	assert_int_equal(r[1].attempts, 3);
	client_req_describe(&r[1], d, sizeof(d));
	assert_non_null(strstr(d, "Timeout"));
	client_req_release(&r[0]);
	client_req_release(&r[1]);
	client_free(c);
}

/* client_wait returns each request as it ends, without waiting for the others; a request
 * that has not ended can be aborted. */
static void test_wait_each(void **state)
{
	static struct server fast, silent;
	struct client *c = client_new(5, 0, 0);
	struct client_req r[2], *done[2];

	(void)state;
	silent.silent = 1;
	server_start(&fast);
	server_start(&silent);
	client_req_init(&r[0], "GET", url(silent.port), NULL, NULL);
	client_req_init(&r[1], "GET", url(fast.port), NULL, NULL);
	client_start(c, &r[0]);
	client_start(c, &r[1]);
	assert_int_equal(client_wait(c, 4, done, 2), 1);
	assert_ptr_equal(done[0], &r[1]);
	assert_int_equal(r[1].status, 200);
	assert_string_equal(r[1].resp.data, "{\"ok\":true}");
	/* Started again at once, as a long-poll is re-armed. */
	client_start(c, &r[1]);
	assert_int_equal(client_wait(c, 4, done, 2), 1);
	assert_ptr_equal(done[0], &r[1]);
	assert_int_equal(r[1].status, 200);
	client_abort(c, &r[0]);
	assert_int_equal(client_wait(c, 0.1, done, 2), 0);
	assert_int_equal(r[0].status, 0);
	client_req_release(&r[0]);
	client_req_release(&r[1]);
	client_free(c);
}

/* n parallel GETs; returns the new connections they opened. */
static long batch(struct client *c, int port, int n)
{
	struct client_req r[64];
	long att0, conn0, att, conn;
	int i;

	client_counts(c, &att0, &conn0);
	for (i = 0; i < n; i++)
		client_req_init(&r[i], "GET", url(port), NULL, NULL);
	client_run(c, r, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(r[i].status, 200);
		client_req_release(&r[i]);
	}
	client_counts(c, &att, &conn);
	assert_int_equal(att - att0, n);
	return conn - conn0;
}

/* The connection cache: sized for the client's peers, a second round of requests reuses every
 * connection; kept smaller, it must open again what it could not keep. A round has at most
 * CLIENT_PARALLEL_MAX requests under way, the next on the connection one of them left. */
static void test_connection_cache(void **state)
{
	static struct server s = { .delay_ms = 100, .keepalive = 1 };
	const int n = CLIENT_PARALLEL_MAX + 8;
	struct client *c = client_new(5, 0, n);

	(void)state;
	server_start(&s);
	assert_int_equal(batch(c, s.port, n), CLIENT_PARALLEL_MAX);
	assert_true(s.busy_max <= CLIENT_PARALLEL_MAX);
	assert_int_equal(batch(c, s.port, n), 0);
	client_free(c);
	c = client_new(5, 0, 0);
	client_connections_keep(c, 10);
	assert_true(batch(c, s.port, n) >= CLIENT_PARALLEL_MAX);
	assert_true(batch(c, s.port, n) >= CLIENT_PARALLEL_MAX - 10);
	client_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connection_cache),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_retry_503_get_not_post),
		cmocka_unit_test(test_refused_and_timeout),
		cmocka_unit_test(test_wait_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
