/* qf-daemon-rt.h — real-time priority and memory locking for a caller's own process
 * (src/daemon; docs/privileges.md).
 *
 * MakeThreadRealtime: the thread must be a thread of the caller's process (as the bus saw it,
 * /proc/PID/task/TID) owned by the caller's uid, both unchanged since (start times read before
 * and after, as rtkit does: a recycled pid or tid is put back and refused), and the process's
 * RLIMIT_RTTIME hard limit must be set to at most QF_DAEMON_RTTIME_MAX_US, so the kernel kills a
 * thread that stops sleeping. The thread becomes SCHED_FIFO | SCHED_RESET_ON_FORK (children
 * start as normal tasks) at 1 … QF_DAEMON_MAX_PRIORITY; a process holds at most one real-time
 * thread per online CPU this way, and the threads go back to SCHED_OTHER when the caller leaves
 * the bus.
 *
 * RaiseMemlockLimit: the caller's RLIMIT_MEMLOCK becomes half the PC's RAM (never lowered), so
 * that mlockall works for a process of the size of the wizard, and a member can pin at most
 * half the memory. Needs CAP_SYS_RESOURCE (prlimit on another user's process).
 *
 * Main thread only. */
#pragma once

#include <glib.h>

#include "qf-daemon-caller.h"

G_BEGIN_DECLS

#define QF_DAEMON_MAX_PRIORITY  99
#define QF_DAEMON_RTTIME_MAX_US 200000   /* rtkit's RTTimeUSecMax default */

gboolean qf_daemon_make_thread_realtime (QfCaller  *caller,
                                         guint64    tid,
                                         guint32    priority,
                                         GError   **error);
/* The bound RaiseMemlockLimit sets: half of the RAM. */
guint64  qf_daemon_memlock_bytes        (void);
gboolean qf_daemon_raise_memlock        (QfCaller  *caller,
                                         guint64   *bytes,
                                         GError   **error);

G_END_DECLS
