/* qf-responder.c — the latency responder: one epoll loop for sockperf-style ping-pong (TCP and
 * UDP), our cycle protocol and emulated poor links (src/engine). See qf-responder.h.
 *
 * This file makes and frees a responder: the configuration checked, the sockets bound (so a
 * bind error is reported before any thread starts), the tables allocated before the run.
 * The rest lives in a file per concern; qf-responder-private.h says which and how they call
 * each other. Threads: qf_responder_new/free on the owner's thread.
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-responder-private.h"

#define DEFAULT_MAX_CLIENTS      64
#define DEFAULT_MAX_TEST_SECONDS 3600

static int
open_socket (QfResponder  *self,
             int           socktype,
             guint16       port,
             GError      **error)
{
  struct sockaddr_storage ss = { 0 };
  socklen_t len;
  int fd, one = 1, zero = 0;

  if (self->bind_address != NULL)
    {
      if (!qf_net_resolve (self->bind_address, port, socktype, &ss, &len, error))
        return -1;
    }
  else
    {
      struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;
      in6->sin6_family = AF_INET6;
      in6->sin6_addr = in6addr_any;
      in6->sin6_port = htons (port);
      len = sizeof *in6;
    }

  fd = socket (ss.ss_family, socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0 && self->bind_address == NULL && errno == EAFNOSUPPORT)
    {
      /* IPv6 disabled on this machine: serve IPv4 only. */
      struct sockaddr_in *in = (struct sockaddr_in *) &ss;
      memset (&ss, 0, sizeof ss);
      in->sin_family = AF_INET;
      in->sin_addr.s_addr = htonl (INADDR_ANY);
      in->sin_port = htons (port);
      len = sizeof *in;
      fd = socket (AF_INET, socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    }
  if (fd < 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot open a socket"));
      return -1;
    }
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (ss.ss_family == AF_INET6 && self->bind_address == NULL)
    setsockopt (fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  if (!qf_net_bind_iface (fd, ss.ss_family, self->iface, error))
    {
      close (fd);
      return -1;
    }
  if (bind (fd, (struct sockaddr *) &ss, len) != 0)
    {
      int errsv = errno;
      g_autofree char *where = qf_net_address_to_string ((struct sockaddr *) &ss, TRUE);
      if (errsv == EADDRINUSE)
        g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_IO,
                     _("Cannot listen on %s (%s): the port is in use. Is another responder or "
                       "sockperf already running? Choose another port with --latency-port."),
                     where, socktype == SOCK_STREAM ? "TCP" : "UDP");
      else
        qf_net_set_errno_error (error, errsv, _("Cannot listen on %s"), where);
      close (fd);
      return -1;
    }
  if (socktype == SOCK_STREAM && listen (fd, 128) != 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot listen for TCP connections"));
      close (fd);
      return -1;
    }
  return fd;
}

static guint16
socket_port (int fd)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;

  if (getsockname (fd, (struct sockaddr *) &ss, &len) != 0)
    return 0;
  if (ss.ss_family == AF_INET6)
    return ntohs (((struct sockaddr_in6 *) &ss)->sin6_port);
  return ntohs (((struct sockaddr_in *) &ss)->sin_port);
}

/* Checks what qf_responder_new cannot serve with, in the order the errors were always given. */
static gboolean
check_config (const QfResponderConfig  *config,
              GError                  **error)
{
  if (config->max_msg_size != 0
      && (config->max_msg_size < QF_SOCKPERF_MIN_MSG_SIZE
          || config->max_msg_size > QF_SOCKPERF_MAX_TCP_MSG_SIZE))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The largest message must be between %u and %u bytes"),
                   QF_SOCKPERF_MIN_MSG_SIZE, QF_SOCKPERF_MAX_TCP_MSG_SIZE);
      return FALSE;
    }
  if (config->token != NULL && config->max_msg_size != 0 && config->max_msg_size < QF_AUTH_MAX_SIZE)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("With an access token the largest message must be at least %u bytes"),
                   QF_AUTH_MAX_SIZE);
      return FALSE;
    }
  return TRUE;
}

/* The connection, peer and buffer tables, allocated before the run so it allocates only per
 * connection. */
static void
allocate_tables (QfResponder *self)
{
  self->n_conns = self->config.max_clients + QF_ADMISSION_TOTAL;
  self->n_peers = self->config.max_clients;
  self->conns = g_new0 (QfResponderConn, self->n_conns);
  self->spinners = g_new0 (guint, self->n_conns);
  for (guint i = 0; i < self->n_conns; i++)
    self->conns[i].fd = -1;
  self->peers = g_new0 (QfResponderPeer, self->n_peers);
  self->udp_buf = g_malloc (QF_RESPONDER_UDP_BUFFER_SIZE);
}

/* The TCP and UDP sockets on one port, both in the epoll set. */
static gboolean
open_sockets (QfResponder  *self,
              guint16       port,
              GError      **error)
{
  struct epoll_event ev = { 0 };

  self->tcp_fd = open_socket (self, SOCK_STREAM, port, error);
  if (self->tcp_fd < 0)
    return FALSE;
  self->port = socket_port (self->tcp_fd);
  self->udp_fd = open_socket (self, SOCK_DGRAM, self->port, error);
  if (self->udp_fd < 0)
    return FALSE;

  self->epfd = epoll_create1 (EPOLL_CLOEXEC);
  if (self->epfd < 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot create the event loop"));
      return FALSE;
    }
  ev.events = EPOLLIN;
  ev.data.u64 = MAKE_TAG (TAG_TCP_LISTEN, 0);
  epoll_ctl (self->epfd, EPOLL_CTL_ADD, self->tcp_fd, &ev);
  ev.data.u64 = MAKE_TAG (TAG_UDP, 0);
  epoll_ctl (self->epfd, EPOLL_CTL_ADD, self->udp_fd, &ev);
  return TRUE;
}

QfResponder *
qf_responder_new (const QfResponderConfig  *config,
                  GError                  **error)
{
  g_autoptr(QfResponder) self = NULL;

  g_return_val_if_fail (config != NULL, NULL);

  self = g_new0 (QfResponder, 1);
  self->epfd = self->tcp_fd = self->udp_fd = -1;
  g_mutex_init (&self->clients_lock);
  self->clients = g_array_new (FALSE, TRUE, sizeof (QfServedClient));
  g_array_set_clear_func (self->clients, qf_served_client_clear);
  if (!_qf_responder_emulator_init (&self->emulator, &config->emulate, config->load_bytes,
                                    config->load_data, error)
      || !check_config (config, error))
    return NULL;

  self->config = *config;
  self->bind_address = g_strdup (config->bind_address);
  self->iface = g_strdup (config->iface);
  self->config.bind_address = self->bind_address;
  self->config.iface = self->iface;
  if (self->config.max_clients == 0)
    self->config.max_clients = DEFAULT_MAX_CLIENTS;
  if (self->config.max_test_seconds == 0)
    self->config.max_test_seconds = DEFAULT_MAX_TEST_SECONDS;
  self->max_msg = config->max_msg_size ? config->max_msg_size : QF_SOCKPERF_MAX_UDP_MSG_SIZE;
  allocate_tables (self);
  if (!qf_auth_server_init (&self->auth, config->token, config->allow_classic, error))
    return NULL;
  self->config.token = self->auth.token;
  if (!open_sockets (self, config->latency_port, error))
    return NULL;
  return g_steal_pointer (&self);
}

guint16
qf_responder_get_port (QfResponder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->port;
}

void
qf_responder_get_stats (QfResponder      *self,
                        QfResponderStats *stats)
{
  g_return_if_fail (self != NULL && stats != NULL);
  *stats = self->stats;
}

void
qf_responder_free (QfResponder *self)
{
  if (self == NULL)
    return;
  _qf_responder_conn_close_all (self);   /* none left after a run */
  _qf_responder_udp_end_all (self);
  _qf_responder_emulator_clear (&self->emulator);
  if (self->epfd >= 0)
    close (self->epfd);
  if (self->tcp_fd >= 0)
    close (self->tcp_fd);
  if (self->udp_fd >= 0)
    close (self->udp_fd);
  g_free (self->conns);
  g_free (self->spinners);
  g_free (self->peers);
  g_free (self->udp_buf);
  g_free (self->bind_address);
  g_free (self->iface);
  qf_auth_server_clear (&self->auth);
  g_clear_pointer (&self->clients, g_array_unref);
  g_mutex_clear (&self->clients_lock);
  g_free (self);
}
