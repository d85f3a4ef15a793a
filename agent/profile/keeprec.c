/* keeprec.c -- the words of what a profile is to a device (keeprec.h). */
#include "profile/keeprec.h"
#include "banned.h"

const char *const keep_state_names[KEEP_N_STATES] = {
	"held",   "drifted", "reapplied",   "pending",  "yielded",
	"failed", "absent",  "not_allowed", "conflict",
};
