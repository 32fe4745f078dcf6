/* What the cache's files still take from one header while they move onto
 * headers of their own (store.h): the options, messages and allocation,
 * the portfolio, the counters, and the event loop store_open was given. */
#ifndef RACER_RACER_H
#define RACER_RACER_H

#include "protocol/message.h"
#include "racer/cache_value.h"
#include "racer/options.h"
#include "racer/spawn.h"
#include "racer/stats.h"
#include "racer/cache_where.h"
#include "racer/store_reply.h"
#include "racer/util.h"
#include "racer/workers.h"

extern struct event_base *base;

#endif
