/* qf-rt-grant.h — real-time priority and memory locking for a measurement of an unprivileged
 * process, from whoever grants them (src/core; docs/privileges.md).
 *
 * The rt engine calls its acquire_rt function when a measuring thread may not make itself
 * SCHED_FIFO; the rt step passes qf_rt_grant_acquire() with a QfRtGrant as user data. It asks
 * Qualify's system service qualifyd first (priority as asked, up to 99, for root, members of the
 * group qualify and whom polkit authorises), then rtkit (the system's own grant, at most its
 * MaxRealtimePriority, 20 by default, refused over SSH). Before the engine starts,
 * qf_rt_grant_prepare() asks qualifyd to raise RLIMIT_MEMLOCK when the process cannot lock its
 * memory itself: that call is also where polkit asks an administrator's password, once, before
 * any measuring thread waits for it.
 *
 *   g_autoptr(QfRtGrant) grant = qf_rt_grant_new ();
 *   qf_rt_grant_prepare (grant, priority);        // before qf_rt_engine_run()
 *   config.acquire_rt = qf_rt_grant_acquire; config.acquire_data = grant;
 *   …
 *   qf_rt_grant_source (grant)   // "qualifyd", "rtkit" or NULL
 *   qf_rt_grant_error (grant)    // why nobody granted, with the fix
 *
 * qf_rt_grant_free() puts RLIMIT_RTTIME back where an unprivileged process can. */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct QfRtGrant QfRtGrant;

QfRtGrant  *qf_rt_grant_new     (void);
void        qf_rt_grant_free    (QfRtGrant *grant);

/* Before the measurement, on its thread: when SCHED_FIFO at `priority` or memory locking needs
 * help, asks qualifyd to raise RLIMIT_MEMLOCK (which also settles the authorisation). May wait
 * for a person typing a password. */
void        qf_rt_grant_prepare (QfRtGrant *grant,
                                 int        priority);
/* A QfRtAcquireFunc: qualifyd, then rtkit. Any thread; serialised internally. */
gboolean    qf_rt_grant_acquire (pid_t      tid,
                                 int        priority,
                                 gpointer   grant);

/* After the run: who granted ("qualifyd", "rtkit"; the weaker when threads differ; NULL: nobody
 * was asked or nobody granted) and why nobody did (NULL when someone did or nobody was asked). */
const char *qf_rt_grant_source  (QfRtGrant *grant);
const char *qf_rt_grant_error   (QfRtGrant *grant);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfRtGrant, qf_rt_grant_free)

G_END_DECLS
