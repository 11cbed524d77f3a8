/* cm_time: the monotonic clock, for timing and timeouts. */
#ifndef CM_TIME_H
#define CM_TIME_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double cm_seconds(void);

/* The same in whole milliseconds. */
long long cm_ms(void);

#endif
