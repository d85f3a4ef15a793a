/* params_cache.h -- the rendered GET params body per device, reused for a short while as long
 * as the agent wrote nothing (the tune generation is unchanged). Thread-safe. */
#ifndef FT_PARAMS_CACHE_H
#define FT_PARAMS_CACHE_H

#include <pthread.h>

#define PARAMS_CACHE_SLOTS 16

struct params_cache {
	pthread_mutex_t lock;
	double ttl_s; /* 0: the cache is off */
	struct {
		char dev[64];
		char *body;
		unsigned long generation;
		double at_mono_s;
	} slot[PARAMS_CACHE_SLOTS];
	int next; /* round-robin victim */
};

/* ttl_ms 0 turns the cache off. */
void params_cache_init(struct params_cache *c, int ttl_ms);
void params_cache_release(struct params_cache *c);
/* A copy of dev's body if it was rendered at generation gen less than the ttl before
 * now_mono_s, else NULL. Caller frees. */
char *params_cache_get(struct params_cache *c, const char *dev, unsigned long gen,
                       double now_mono_s);
/* Keep a copy of dev's body, rendered at generation gen at now_mono_s. */
void params_cache_put(struct params_cache *c, const char *dev, unsigned long gen, double now_mono_s,
                      const char *body);

#endif
