/* qf-rt-grant.c — qualifyd, then rtkit (src/core); see qf-rt-grant.h. */
#include "config.h"

#include <sys/resource.h>

#include "qf-privileges.h"
#include "qf-qualifyd.h"
#include "qf-rt-grant.h"
#include "qf-rtkit.h"

struct QfRtGrant
{
  GMutex        lock;
  QfRtkit      *rtkit;
  struct rlimit saved_rttime;
  gboolean      have_saved;
  gboolean      rttime_changed;
  gboolean      qualifyd_done;     /* qualifyd refused for good (absent, not authorised) */
  GError       *qualifyd_error;    /* its first refusal */
  guint         by_qualifyd;       /* threads qualifyd promoted */
  guint         by_rtkit;
};

QfRtGrant *
qf_rt_grant_new (void)
{
  QfRtGrant *grant = g_new0 (QfRtGrant, 1);

  g_mutex_init (&grant->lock);
  grant->rtkit = qf_rtkit_new ();
  grant->have_saved = getrlimit (RLIMIT_RTTIME, &grant->saved_rttime) == 0;
  return grant;
}

void
qf_rt_grant_free (QfRtGrant *grant)
{
  if (grant == NULL)
    return;
  if (grant->rttime_changed && grant->have_saved)
    setrlimit (RLIMIT_RTTIME, &grant->saved_rttime);
  qf_rtkit_free (grant->rtkit);
  g_clear_error (&grant->qualifyd_error);
  g_mutex_clear (&grant->lock);
  g_free (grant);
}

/* Keeps qualifyd's first refusal; after one that will not change for this process (no
 * qualifyd, not authorised) it is not asked again. */
static void
note_refusal (QfRtGrant *grant,
              GError    *error)
{
  if (g_error_matches (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_NOT_AVAILABLE) ||
      g_error_matches (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_NOT_AUTHORIZED))
    grant->qualifyd_done = TRUE;
  if (grant->qualifyd_error == NULL)
    grant->qualifyd_error = g_error_copy (error);
}

void
qf_rt_grant_prepare (QfRtGrant *grant,
                     int        priority)
{
  g_autoptr(GError) error = NULL;
  struct rlimit rl;
  guint64 bytes = 0;

  g_return_if_fail (grant != NULL);
  if (priority < 1 || qf_privileges_can_lock_memory ())
    return;
  /* Up to the hard limit needs nobody's help. */
  if (getrlimit (RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur < rl.rlim_max)
    {
      rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_MEMLOCK, &rl);
    }
  g_mutex_lock (&grant->lock);
  if (!grant->qualifyd_done && !qf_qualifyd_raise_memlock (&bytes, &error))
    {
      /* Memory locking is worth a warning, not a failure: only the refusals that also stand
       * for real-time priority keep qualifyd from being asked for it. */
      if (!g_error_matches (error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_FAILED))
        note_refusal (grant, error);
      else
        g_debug ("qualifyd did not raise RLIMIT_MEMLOCK: %s", error->message);
    }
  g_mutex_unlock (&grant->lock);
}

gboolean
qf_rt_grant_acquire (pid_t    tid,
                     int      priority,
                     gpointer user_data)
{
  QfRtGrant *grant = user_data;
  g_autoptr(GError) error = NULL;
  gboolean changed = FALSE;

  g_return_val_if_fail (grant != NULL, FALSE);

  g_mutex_lock (&grant->lock);
  if (!grant->qualifyd_done)
    {
      gboolean ok = qf_qualifyd_make_thread_realtime (tid, priority, &changed, &error);

      grant->rttime_changed |= changed;
      if (ok)
        {
          grant->by_qualifyd++;
          g_mutex_unlock (&grant->lock);
          return TRUE;
        }
      note_refusal (grant, error);
    }
  g_mutex_unlock (&grant->lock);

  if (!qf_rtkit_acquire (tid, priority, grant->rtkit))
    return FALSE;
  g_mutex_lock (&grant->lock);
  grant->by_rtkit++;
  g_mutex_unlock (&grant->lock);
  return TRUE;
}

const char *
qf_rt_grant_source (QfRtGrant *grant)
{
  g_return_val_if_fail (grant != NULL, NULL);
  if (grant->by_rtkit > 0)
    return "rtkit";
  return grant->by_qualifyd > 0 ? "qualifyd" : NULL;
}

const char *
qf_rt_grant_error (QfRtGrant *grant)
{
  g_return_val_if_fail (grant != NULL, NULL);
  if (grant->by_qualifyd > 0 || grant->by_rtkit > 0)
    return NULL;
  /* Without qualifyd on this PC, rtkit's account is the one that says what happened. */
  if (grant->qualifyd_error != NULL &&
      !g_error_matches (grant->qualifyd_error, QF_QUALIFYD_ERROR, QF_QUALIFYD_ERROR_NOT_AVAILABLE))
    return grant->qualifyd_error->message;
  if (qf_rtkit_error (grant->rtkit) != NULL)
    return qf_rtkit_error (grant->rtkit);
  return grant->qualifyd_error != NULL ? grant->qualifyd_error->message : NULL;
}
