/* qf-test-net.h — socket waits shared by the network tests (tests/engine). */
#pragma once

#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <sys/socket.h>

#include "qf-clock.h"

/* Whether the peer closes fd (EOF or a reset, after whatever it sent) by deadline_ns. */
static inline gboolean
qf_test_closed_by (int    fd,
                   gint64 deadline_ns)
{
  char buf[256];

  while (qf_clock_now_ns () < deadline_ns)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      ssize_t n;

      if (poll (&pfd, 1, 50) <= 0)
        continue;
      n = recv (fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno == ECONNRESET))
        return TRUE;
    }
  return FALSE;
}
