/* api.h -- the agent's JSON API: the route table (with each route's query parameters). */
#ifndef FT_API_H
#define FT_API_H

#include "http/httpd.h"

extern const struct route api_routes[];
extern const int api_n_routes;

#endif
