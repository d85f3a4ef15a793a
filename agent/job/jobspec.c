/* jobspec.c -- the job spec struct: initial state, labels, release. */
#include <stdlib.h>
#include <string.h>

#include "job/jobspec.h"
#include "xmalloc.h"
#include "banned.h"

void job_spec_init(struct job_spec *s)
{
	memset(s, 0, sizeof(*s));
	engine_opts_init(&s->opts);
	s->loops = 1;
}

void job_spec_release(struct job_spec *s)
{
	int i;

	if (!s)
		return;
	tune_set_release(&s->params);
	for (i = 0; i < s->n_labels; i++) {
		free(s->labels[i].key);
		free(s->labels[i].value);
	}
	free(s->directory);
	free(s->fs);
	free(s->opts.workloads);
	job_spec_init(s);
}

void job_spec_label_add(struct job_spec *s, const char *key, const char *value)
{
	if (s->n_labels >= JOB_LABELS_MAX)
		return;
	s->labels[s->n_labels].key = xstrdup(key);
	s->labels[s->n_labels].value = xstrdup(value);
	s->n_labels++;
}
