/* qf-rttime.h — RLIMIT_RTTIME as rtkit and qualifyd demand it (src/core).
 *
 * Both grant real-time priority only to a process whose RLIMIT_RTTIME hard limit is set and at
 * most their bound (rtkit's RTTimeUSecMax, 200 ms by default; qualifyd the same): the kernel
 * then kills a real-time thread that runs that long without sleeping, so a runaway measurement
 * cannot hold a CPU. An unprivileged process cannot raise the hard limit again; the lowered
 * limit only ever matters to a real-time thread that runs 200 ms without sleeping. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lowers this process's RLIMIT_RTTIME (soft and hard) to max_us when it is unset or higher;
 * *changed says whether it did. */
gboolean qf_rttime_bound (gint64     max_us,
                          gboolean  *changed,
                          GError   **error);

G_END_DECLS
