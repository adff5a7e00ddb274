/* qf-daemon-rt.c — SCHED_FIFO for a caller's thread, RLIMIT_MEMLOCK for its process
 * (src/daemon); see qf-daemon-rt.h. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "qf-daemon-error.h"
#include "qf-daemon-proc.h"
#include "qf-daemon-rt.h"
#include "qf-i18n.h"

typedef struct
{
  pid_t   pid;
  pid_t   tid;
  guint64 start_time;
} RtThread;

/* The same thread (not a recycled tid) and still real-time. */
static gboolean
thread_still_rt (QfCaller *caller,
                 gpointer  resource)
{
  RtThread *t = resource;
  guint64 start_time;
  int policy;

  if (!qf_daemon_proc_start_time (t->pid, t->tid, &start_time) || start_time != t->start_time)
    return FALSE;
  policy = sched_getscheduler (t->tid);
  return policy >= 0 && ((policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO ||
                         (policy & ~SCHED_RESET_ON_FORK) == SCHED_RR);
}

static void
demote (pid_t tid)
{
  struct sched_param param = { 0 };

  sched_setscheduler (tid, SCHED_OTHER, &param);
}

static void
thread_release (QfCaller *caller,
                gpointer  resource)
{
  RtThread *t = resource;

  if (thread_still_rt (caller, t))
    demote (t->tid);
  g_free (t);
}

static const QfHoldClass rt_thread_class = { "real-time thread", thread_still_rt, thread_release };

static gboolean
thread_is_callers (QfCaller *caller,
                   pid_t     tid,
                   guint64  *start_time,
                   GError  **error)
{
  pid_t pid = qf_caller_pid (caller);

  if (!qf_caller_is_current (caller))
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Process %d, which asked, has ended"), (int) pid);
      return FALSE;
    }
  if (!qf_daemon_proc_start_time (pid, tid, start_time) ||
      !qf_daemon_proc_owned_by (pid, tid, qf_caller_uid (caller)))
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_NOT_YOUR_THREAD,
                   _("Thread %d is not a thread of process %d of user %u, which asked"),
                   (int) tid, (int) pid, (guint) qf_caller_uid (caller));
      return FALSE;
    }
  return TRUE;
}

static gboolean
rttime_bounded (QfCaller *caller,
                GError  **error)
{
  guint64 soft = 0, hard = QF_DAEMON_PROC_UNLIMITED;

  if (qf_daemon_proc_limit (qf_caller_pid (caller), "Max realtime timeout", &soft, &hard) &&
      hard != QF_DAEMON_PROC_UNLIMITED && hard <= QF_DAEMON_RTTIME_MAX_US)
    return TRUE;
  g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_RTTIME_NOT_SET,
               _("Process %d has not set its RLIMIT_RTTIME hard limit to at most %d µs"),
               (int) qf_caller_pid (caller), QF_DAEMON_RTTIME_MAX_US);
  return FALSE;
}

static gboolean
below_thread_cap (QfCaller *caller,
                  GError  **error)
{
  long cpus = sysconf (_SC_NPROCESSORS_ONLN);
  guint held = qf_caller_count_held (caller, &rt_thread_class);

  if (cpus < 1)
    cpus = 1;
  if (held < (guint) cpus)
    return TRUE;
  g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_TOO_MANY_THREADS,
               _("Process %d already holds %u real-time threads, one per CPU"),
               (int) qf_caller_pid (caller), held);
  return FALSE;
}

gboolean
qf_daemon_make_thread_realtime (QfCaller  *caller,
                                guint64    tid64,
                                guint32    priority,
                                GError   **error)
{
  struct sched_param param = { 0 };
  pid_t tid = (pid_t) tid64;
  guint64 start_time = 0, again = 0;
  RtThread *t;

  if (priority < 1 || priority > QF_DAEMON_MAX_PRIORITY)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_INVALID_PRIORITY,
                   _("Priority %u is outside 1…%d"), priority, QF_DAEMON_MAX_PRIORITY);
      return FALSE;
    }
  if (tid64 == 0 || tid64 > G_MAXINT32)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_NOT_YOUR_THREAD,
                   _("%llu is not a thread id"), (unsigned long long) tid64);
      return FALSE;
    }
  if (!thread_is_callers (caller, tid, &start_time, error) || !rttime_bounded (caller, error) ||
      !below_thread_cap (caller, error))
    return FALSE;

  param.sched_priority = (int) priority;
  if (sched_setscheduler (tid, SCHED_FIFO | SCHED_RESET_ON_FORK, &param) != 0)
    {
      int errsv = errno;
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Cannot make thread %d SCHED_FIFO %u: %s"), (int) tid, priority,
                   g_strerror (errsv));
      return FALSE;
    }
  /* Still the same process and thread? Otherwise the tid was recycled under us: undo. */
  if (!thread_is_callers (caller, tid, &again, NULL) || again != start_time)
    {
      demote (tid);
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_NOT_YOUR_THREAD,
                   _("Thread %d ended while it was made real-time"), (int) tid);
      return FALSE;
    }

  t = g_new0 (RtThread, 1);
  t->pid = qf_caller_pid (caller);
  t->tid = tid;
  t->start_time = start_time;
  qf_caller_hold (caller, &rt_thread_class, t);
  return TRUE;
}

guint64
qf_daemon_memlock_bytes (void)
{
  struct sysinfo info;

  if (sysinfo (&info) != 0)
    return 0;
  return (guint64) info.totalram * info.mem_unit / 2;
}

gboolean
qf_daemon_raise_memlock (QfCaller  *caller,
                         guint64   *bytes,
                         GError   **error)
{
  pid_t pid = qf_caller_pid (caller);
  guint64 bound = qf_daemon_memlock_bytes ();
  guint64 soft = 0, hard = 0;
  struct rlimit old, rl;

  if (!qf_caller_is_current (caller) ||
      !qf_daemon_proc_limit (pid, "Max locked memory", &soft, &hard))
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Process %d, which asked, has ended"), (int) pid);
      return FALSE;
    }
  *bytes = MIN (soft, hard);
  if (soft >= bound && hard >= bound)
    return TRUE;

  rl.rlim_cur = (rlim_t) MAX (soft, bound);
  rl.rlim_max = hard == QF_DAEMON_PROC_UNLIMITED ? RLIM_INFINITY : (rlim_t) MAX (hard, bound);
  if (prlimit (pid, RLIMIT_MEMLOCK, &rl, &old) != 0)
    {
      int errsv = errno;
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   errsv == EPERM
                   ? _("Cannot raise RLIMIT_MEMLOCK of process %d: the service lacks "
                       "CAP_SYS_RESOURCE (a container that withholds it?)")
                   : _("Cannot raise RLIMIT_MEMLOCK of process %d"), (int) pid);
      return FALSE;
    }
  if (!qf_caller_is_current (caller))
    {
      /* The pid was recycled under us: put the other process's limit back. */
      prlimit (pid, RLIMIT_MEMLOCK, &old, NULL);
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Process %d, which asked, has ended"), (int) pid);
      return FALSE;
    }
  *bytes = (guint64) rl.rlim_cur;
  return TRUE;
}
