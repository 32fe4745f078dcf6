/* --stats: what happened, on standard error at the end, within 80 columns. */
#ifndef RACER_REPORT_H
#define RACER_REPORT_H

void report_stats(double wall_ms);

#endif
