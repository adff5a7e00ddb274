/* qf-clock.h — monotonic time helpers for the engines (src/engine). Every interval in Qualify is
 * measured on CLOCK_MONOTONIC; wall-clock time is only ever printed on a report. */
#pragma once

#include <glib.h>
#include <time.h>

G_BEGIN_DECLS

#define QF_NSEC_PER_SEC  G_GINT64_CONSTANT (1000000000)
#define QF_NSEC_PER_MSEC G_GINT64_CONSTANT (1000000)
#define QF_NSEC_PER_USEC G_GINT64_CONSTANT (1000)

static inline gint64
qf_timespec_to_ns (const struct timespec *ts)
{
  return (gint64) ts->tv_sec * QF_NSEC_PER_SEC + ts->tv_nsec;
}

static inline struct timespec
qf_ns_to_timespec (gint64 ns)
{
  struct timespec ts = { ns / QF_NSEC_PER_SEC, ns % QF_NSEC_PER_SEC };
  return ts;
}

/* CLOCK_MONOTONIC now, in ns (vDSO: no system call). */
static inline gint64
qf_clock_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return qf_timespec_to_ns (&ts);
}

G_END_DECLS
