/* qf-rttime.c — bounding RLIMIT_RTTIME (src/core); see qf-rttime.h. */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <sys/resource.h>

#include "qf-i18n.h"
#include "qf-rttime.h"

gboolean
qf_rttime_bound (gint64     max_us,
                 gboolean  *changed,
                 GError   **error)
{
  struct rlimit rttime;

  *changed = FALSE;
  if (getrlimit (RLIMIT_RTTIME, &rttime) != 0)
    rttime.rlim_max = RLIM_INFINITY;
  if (rttime.rlim_max != RLIM_INFINITY && rttime.rlim_max <= (rlim_t) max_us)
    return TRUE;
  rttime.rlim_cur = rttime.rlim_max = (rlim_t) max_us;
  if (setrlimit (RLIMIT_RTTIME, &rttime) != 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot set RLIMIT_RTTIME to %lld µs as the real-time grant demands: %s"),
                   (long long) max_us, g_strerror (errsv));
      return FALSE;
    }
  *changed = TRUE;
  return TRUE;
}
