/* The monotonic clock (clock.h). */
#include "config.h"

#include "clock.h"

#include <time.h>

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double ms_since(uint64_t start_ns)
{
	return start_ns ? (double)(now_ns() - start_ns) / 1e6 : 0.0;
}

struct timeval ms_tv(double ms)
{
	if (ms < 0)
		ms = 0;
	struct timeval tv = {(time_t)(ms / 1000), (suseconds_t)((long)(ms * 1000) % 1000000)};
	return tv;
}
