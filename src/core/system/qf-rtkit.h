/* qf-rtkit.h — real-time priority through RealtimeKit for unprivileged runs (src/core).
 *
 * When a measurement thread may not make itself SCHED_FIFO (no CAP_SYS_NICE, RLIMIT_RTPRIO 0),
 * the rt engine calls its acquire_rt function; the core passes qf_rtkit_acquire() with a QfRtkit
 * as user data. It asks org.freedesktop.RealtimeKit1 on the system bus (MakeThreadRealtime), at
 * most at rtkit's MaxRealtimePriority, after setting RLIMIT_RTTIME no higher than rtkit's
 * RTTimeUSecMax as rtkit demands. qf_rtkit_free() puts RLIMIT_RTTIME back.
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct QfRtkit QfRtkit;

QfRtkit    *qf_rtkit_new        (void);
void        qf_rtkit_free       (QfRtkit    *rtkit);

/* A QfRtAcquireFunc: asks rtkit to make thread `tid` of this process SCHED_FIFO at `priority`
 * (lowered to rtkit's maximum). TRUE when granted. Any thread; serialised internally. */
gboolean    qf_rtkit_acquire    (pid_t       tid,
                                 int         priority,
                                 gpointer    rtkit);

/* After an acquire: whether it was asked at all, the priority it granted (0 if none) and why
 * it refused (NULL when it granted or was never asked). */
gboolean    qf_rtkit_was_asked  (QfRtkit    *rtkit);
int         qf_rtkit_granted_priority (QfRtkit *rtkit);
const char *qf_rtkit_error      (QfRtkit    *rtkit);

/* The synchronous call itself, for callers that have their own thread id. */
gboolean    qf_rtkit_make_thread_realtime (pid_t     tid,
                                           int       priority,
                                           int      *granted_priority,
                                           gboolean *rttime_changed,
                                           GError  **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfRtkit, qf_rtkit_free)

G_END_DECLS
