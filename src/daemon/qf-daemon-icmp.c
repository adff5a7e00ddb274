/* qf-daemon-icmp.c — raw ICMP sockets (src/daemon); see qf-daemon-icmp.h. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "qf-daemon-error.h"
#include "qf-daemon-icmp.h"
#include "qf-i18n.h"

int
qf_daemon_open_icmp_socket (guint32   ip_version,
                            GError  **error)
{
  int fd;

  if (ip_version != 4 && ip_version != 6)
    {
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_UNSUPPORTED,
                   _("IP version %u is neither 4 nor 6"), ip_version);
      return -1;
    }
  fd = socket (ip_version == 6 ? AF_INET6 : AF_INET, SOCK_RAW | SOCK_CLOEXEC,
               ip_version == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, QF_DAEMON_ERROR, QF_DAEMON_ERROR_FAILED,
                   _("Cannot open a raw ICMPv%u socket: %s"), ip_version, g_strerror (errsv));
    }
  return fd;
}
