/* switches.h -- the agent's test switches: what only a test needs, read from the environment
 * here and nowhere else, and never part of the configuration (struct agent_config) or the
 * command line. Each is off unless its variable is exactly "1" (the clock offset: a number). */
#ifndef FT_SWITCHES_H
#define FT_SWITCHES_H

#include <stdbool.h>

/* FLEETTUNE_TEST_NO_LONG_POLL=1: answer as an agent before long-polls did (health lists no
 * "long_poll" feature; GET /api/v1/jobs/{id} refuses wait_s and after as unknown keys), for
 * testing the controller's fallback to polling (tests/integration/it_ctl_longpoll.sh,
 * bench/fleet.sh POLL=1). Read at each call, so a unit test may set and unset it. */
bool switches_no_long_poll(void);
/* FLEETTUNE_TEST_CLOCK_OFFSET_S=SECONDS (a decimal number, the one switch that is not "1"):
 * health's time_s reads that much off the agent's clock, for testing the controller's
 * clock-offset check at pre-flight (tests/integration/it_ctl_start_at.sh). 0 when unset or not
 * a number. */
double switches_clock_offset_s(void);

#endif
