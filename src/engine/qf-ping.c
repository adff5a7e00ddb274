/* qf-ping.c — ICMP echo engine (src/engine). See qf-ping.h.
 *
 * One thread: requests leave at start + k × interval (ppoll with nanosecond timeouts wakes for
 * the next send), and whatever replies arrived in between are read as they come. Send times are
 * CLOCK_REALTIME because the kernel's SO_TIMESTAMPNS receive stamps are; every schedule and
 * timeout is on CLOCK_MONOTONIC.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-i18n.h"
#include "qf-net.h"
#include "qf-ping.h"

#define DEFAULT_TIMEOUT_S   2.0
#define PROGRESS_NS         (100 * QF_NSEC_PER_MSEC)
#define N_SLOTS             65536
#define ICMP_HEADER         8
#define TAG_BYTES           8
#define INDEX_BYTES         8
#define MAX_PRESIZED        (10 * 1000 * 1000)

typedef struct
{
  guint64 index;      /* send index + 1; 0 = never sent */
  gint64  tx_rt_ns;
  gboolean received;
} Slot;

struct QfPing
{
  QfPingConfig             config;
  char                    *host;
  char                    *iface;
  char                    *source;
  struct sockaddr_storage  addr;
  socklen_t                addr_len;
  int                      family;
  int                      fd;
  gboolean                 raw;
  guint16                  ident;
  guint64                  tag;
  guint8                  *packet;
  gsize                    packet_len;
  guint8                  *rx_buf;
  gsize                    rx_cap;
  Slot                    *slots;
  GArray                  *rtts_ns;
  QfHistogram             *hist;
};

gint64
qf_ping_iputils_mdev (gint64 tsum,
                      gint64 tsum2,
                      gint64 total)
{
  long long tmvar, x, prev;
  gint64 tmavg;

  if (total <= 0)
    return 0;
  tmavg = tsum / total;
  if (tsum < G_MAXINT)
    /* iputils: "this slightly clumsy computation order is important to avoid integer rounding
     * errors for small ping times" */
    tmvar = (tsum2 - ((tsum * tsum) / total)) / total;
  else
    tmvar = (tsum2 / total) - (tmavg * tmavg);

  /* iputils' llsqrt: Newton's method on integers. */
  x = tmvar;
  prev = G_MAXINT64;
  if (x > 0)
    while (x < prev)
      {
        prev = x;
        x = (x + (tmvar / x)) / 2;
      }
  return x;
}

static guint16
icmp_checksum (const guint8 *data,
               gsize         len)
{
  guint32 sum = 0;

  for (gsize i = 0; i + 1 < len; i += 2)
    sum += (guint32) (data[i] << 8 | data[i + 1]);
  if (len & 1)
    sum += (guint32) data[len - 1] << 8;
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return (guint16) ~sum;
}

static char *
read_ping_group_range (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/sys/net/ipv4/ping_group_range", &text, NULL, NULL))
    return g_strdup ("?");
  g_strdelimit (g_strstrip (text), "\t", ' ');
  return g_steal_pointer (&text);
}

int
qf_ping_open_socket (int       family,
                     gboolean *raw,
                     GError  **error)
{
  int proto = family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
  int fd, errsv;

  g_return_val_if_fail (family == AF_INET || family == AF_INET6, -1);

  fd = socket (family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
  *raw = FALSE;
  if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EPROTONOSUPPORT))
    {
      fd = socket (family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
      *raw = TRUE;
    }
  if (fd >= 0)
    return fd;

  errsv = errno;
  if (errsv == EACCES || errsv == EPERM)
    {
      g_autofree char *range = read_ping_group_range ();
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_PERMISSION,
                   _("Cannot send ICMP echo requests: unprivileged ping sockets are off "
                     "(net.ipv4.ping_group_range is “%s”) and this program has no "
                     "CAP_NET_RAW. Fix: sudo sysctl -w net.ipv4.ping_group_range=\"0 "
                     "2147483647\" (make it permanent in /etc/sysctl.d/), or run as root."),
                   range);
    }
  else
    qf_net_set_errno_error (error, errsv, _("Cannot open an ICMP socket"));
  return -1;
}

/* A socket from config->open_socket must be what the engine would have opened: ICMP of the
 * host's family, datagram or raw as the hook says. */
static gboolean
check_given_socket (QfPing  *self,
                    GError **error)
{
  int domain = 0, type = 0, protocol = 0;
  socklen_t len = sizeof (int);
  int want_proto = self->family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;

  if (getsockopt (self->fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
      getsockopt (self->fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
      getsockopt (self->fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) != 0 ||
      domain != self->family || protocol != want_proto ||
      type != (self->raw ? SOCK_RAW : SOCK_DGRAM))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The socket given for ping is not an ICMP socket for %s"), self->host);
      return FALSE;
    }
  /* Handed over by another process, it may lack the engine's flags. */
  if (fcntl (self->fd, F_SETFL, fcntl (self->fd, F_GETFL) | O_NONBLOCK) != 0 ||
      fcntl (self->fd, F_SETFD, FD_CLOEXEC) != 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot use the socket given for ping"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
open_socket (QfPing  *self,
             GError **error)
{
  int one = 1;

  if (self->config.open_socket != NULL)
    {
      self->raw = FALSE;
      self->fd = self->config.open_socket (self->family, &self->raw,
                                           self->config.open_socket_data, error);
      if (self->fd < 0 || !check_given_socket (self, error))
        return FALSE;
    }
  else
    {
      self->fd = qf_ping_open_socket (self->family, &self->raw, error);
      if (self->fd < 0)
        return FALSE;
    }

  setsockopt (self->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
  if (self->family == AF_INET6)
    {
      setsockopt (self->fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof one);
      if (self->raw)
        {
          struct icmp6_filter filter;
          ICMP6_FILTER_SETBLOCKALL (&filter);
          ICMP6_FILTER_SETPASS (ICMP6_ECHO_REPLY, &filter);
          ICMP6_FILTER_SETPASS (ICMP6_DST_UNREACH, &filter);
          ICMP6_FILTER_SETPASS (ICMP6_TIME_EXCEEDED, &filter);
          setsockopt (self->fd, IPPROTO_ICMPV6, ICMP6_FILTER, &filter, sizeof filter);
        }
      if (self->config.ttl > 0)
        setsockopt (self->fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &self->config.ttl,
                    sizeof self->config.ttl);
    }
  else
    {
      setsockopt (self->fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof one);
      if (self->config.ttl > 0)
        setsockopt (self->fd, IPPROTO_IP, IP_TTL, &self->config.ttl, sizeof self->config.ttl);
    }
  {
    /* Room for a burst of replies at a 0.1 ms interval while this thread is descheduled. */
    int rcvbuf = 1024 * 1024;
    setsockopt (self->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  }

  if (self->source != NULL)
    {
      struct sockaddr_storage src;
      socklen_t src_len;
      if (!qf_net_resolve (self->source, 0, 0, &src, &src_len, error))
        return FALSE;
      if (src.ss_family != self->family)
        {
          g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                       _("The source address %s is not of the same family as %s"),
                       self->source, self->host);
          return FALSE;
        }
      if (bind (self->fd, (struct sockaddr *) &src, src_len) != 0)
        {
          qf_net_set_errno_error (error, errno, _("Cannot use the source address %s"),
                                  self->source);
          return FALSE;
        }
    }
  if (!qf_net_bind_iface (self->fd, self->family, self->iface, error))
    return FALSE;
  return TRUE;
}

/* Whether a is the broadcast address of ifa's network: the one it names, or the all-ones host
 * part of its prefix, for which the kernel adds a broadcast route whether or not one was named. */
static gboolean
broadcast_of (const struct ifaddrs *ifa,
              in_addr_t             a)
{
  in_addr_t own, mask;

  if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != AF_INET)
    return FALSE;
  if ((ifa->ifa_flags & IFF_BROADCAST) && ifa->ifa_broadaddr != NULL
      && ifa->ifa_broadaddr->sa_family == AF_INET
      && ((const struct sockaddr_in *) ifa->ifa_broadaddr)->sin_addr.s_addr == a)
    return TRUE;
  if (ifa->ifa_netmask == NULL)
    return FALSE;
  own = ((const struct sockaddr_in *) ifa->ifa_addr)->sin_addr.s_addr;
  mask = ((const struct sockaddr_in *) ifa->ifa_netmask)->sin_addr.s_addr;
  /* a /31 or /32 has no broadcast address (RFC 3021) */
  return ntohl (mask) < 0xfffffffeu && a == (own | ~mask);
}

/* TRUE when addr (IPv4) is the limited broadcast or the broadcast address of a network of an
 * interface here: every host there would answer one request, and the kernel refuses to send to
 * it without SO_BROADCAST (EACCES), so no single round trip could be timed. */
static gboolean
is_broadcast (const struct sockaddr_storage *addr)
{
  in_addr_t a = ((const struct sockaddr_in *) addr)->sin_addr.s_addr;
  struct ifaddrs *list = NULL;
  gboolean found = a == htonl (INADDR_BROADCAST);

  if (found || getifaddrs (&list) != 0)
    return found;
  for (struct ifaddrs *ifa = list; ifa != NULL && !found; ifa = ifa->ifa_next)
    found = broadcast_of (ifa, a);
  freeifaddrs (list);
  return found;
}

QfPing *
qf_ping_new (const QfPingConfig  *config,
             GError             **error)
{
  g_autoptr(QfPing) self = NULL;
  guint64 presize;

  g_return_val_if_fail (config != NULL && config->host != NULL, NULL);

  if (config->size > QF_PING_MAX_SIZE)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The packet size must be between 0 and %u bytes"), QF_PING_MAX_SIZE);
      return NULL;
    }
  if (config->interval_ms != 0 && !(config->interval_ms >= 0.1 && config->interval_ms <= 60000))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The interval must be between 0.1 and 60000 ms"));
      return NULL;
    }
  if (config->deadline_s < 0 || config->timeout_s < 0 || config->ttl < 0 || config->ttl > 255)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("The deadline and timeout must be positive and the TTL at most 255"));
      return NULL;
    }

  self = g_new0 (QfPing, 1);
  self->fd = -1;
  self->config = *config;
  self->host = g_strdup (config->host);
  self->source = g_strdup (config->source);
  if (self->config.interval_ms == 0)
    self->config.interval_ms = 1000;
  if (self->config.timeout_s == 0)
    self->config.timeout_s = DEFAULT_TIMEOUT_S;

  if (!qf_net_resolve (self->host, 0, SOCK_DGRAM, &self->addr, &self->addr_len, error))
    return NULL;
  self->family = self->addr.ss_family;
  if (self->family == AF_INET && is_broadcast (&self->addr))
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_INVALID,
                   _("%s is a broadcast address: every host on that network would answer, so no "
                     "round trip to one machine can be measured. Give the address of the helper "
                     "machine."), self->host);
      return NULL;
    }

  /* iputils -I takes an interface or an address. */
  if (config->iface != NULL && config->iface[0] != '\0')
    {
      struct in6_addr any;
      if (inet_pton (AF_INET, config->iface, &any) == 1
          || inet_pton (AF_INET6, config->iface, &any) == 1)
        {
          if (self->source == NULL)
            self->source = g_strdup (config->iface);
        }
      else
        self->iface = g_strdup (config->iface);
    }
  self->config.host = self->host;
  self->config.iface = self->iface;
  self->config.source = self->source;

  if (!open_socket (self, error))
    return NULL;

  self->ident = (guint16) g_random_int_range (1, 65536);
  self->tag = ((guint64) g_random_int () << 32) | g_random_int ();
  self->packet_len = ICMP_HEADER + config->size;
  self->packet = g_malloc0 (self->packet_len);
  /* Pattern as iputils: byte i of the payload is i. */
  for (guint i = 0; i < config->size; i++)
    self->packet[ICMP_HEADER + i] = (guint8) i;
  if (config->size >= TAG_BYTES)
    memcpy (self->packet + ICMP_HEADER, &self->tag, TAG_BYTES);
  self->rx_cap = self->packet_len + 60 + 512;
  self->rx_buf = g_malloc (self->rx_cap);
  self->slots = g_new0 (Slot, N_SLOTS);
  self->hist = qf_histogram_new (QF_PING_HIST_BUCKET_NS, QF_PING_HIST_BUCKETS);

  presize = config->count;
  if (presize == 0 && config->deadline_s > 0)
    presize = (guint64) (config->deadline_s * 1000.0 / self->config.interval_ms) + 16;
  self->rtts_ns = g_array_sized_new (FALSE, FALSE, sizeof (gint64),
                                     (guint) MIN (presize, MAX_PRESIZED));
  return g_steal_pointer (&self);
}

void
qf_ping_free (QfPing *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_free (self->packet);
  g_free (self->rx_buf);
  g_free (self->slots);
  if (self->rtts_ns != NULL)
    g_array_unref (self->rtts_ns);
  qf_histogram_free (self->hist);
  g_free (self->host);
  g_free (self->iface);
  g_free (self->source);
  g_free (self);
}

const QfHistogram *
qf_ping_get_histogram (QfPing *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->hist;
}

static gint64
realtime_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return qf_timespec_to_ns (&ts);
}

typedef struct
{
  guint64 transmitted, received, duplicates, errors;
  gint64  tsum_us, tsum2_us2, tmin_us, tmax_us;
  gint64  last_event_mono;
} Counters;

/* Sends request number index (0-based); FALSE only for an error that ends the run. */
static gboolean
send_one (QfPing    *self,
          guint64    index,
          Counters  *c,
          gboolean  *fatal,
          GError   **error)
{
  guint16 seq = (guint16) ((index + 1) & 0xffff);
  Slot *slot = &self->slots[seq];
  guint8 *p = self->packet;
  gint64 tx;
  ssize_t n;

  p[0] = self->family == AF_INET6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
  p[1] = 0;
  p[2] = p[3] = 0;
  p[4] = self->ident >> 8;
  p[5] = self->ident & 0xff;
  p[6] = seq >> 8;
  p[7] = seq & 0xff;
  if (self->config.size >= TAG_BYTES + INDEX_BYTES)
    {
      guint64 be = GUINT64_TO_BE (index);
      memcpy (p + ICMP_HEADER + TAG_BYTES, &be, INDEX_BYTES);
    }
  /* IPv4 raw sockets need our checksum; the kernel fills it for ICMPv6 and ping sockets. */
  if (self->raw && self->family == AF_INET)
    {
      guint16 sum = icmp_checksum (p, self->packet_len);
      p[2] = sum >> 8;
      p[3] = sum & 0xff;
    }

  slot->index = index + 1;
  slot->received = FALSE;
  tx = realtime_ns ();
  slot->tx_rt_ns = tx;
  n = sendto (self->fd, p, self->packet_len, 0, (struct sockaddr *) &self->addr, self->addr_len);
  c->transmitted++;
  if (n < 0)
    {
      int errsv = errno;
      c->errors++;
      /* No route at all on the very first packet: the address can never answer. */
      if (c->transmitted == 1 && (errsv == ENETUNREACH || errsv == EINVAL || errsv == EACCES
                                  || errsv == EPERM))
        {
          qf_net_set_errno_error (error, errsv, _("Cannot send to %s"), self->host);
          *fatal = TRUE;
          return FALSE;
        }
    }
  return TRUE;
}

static void
handle_reply (QfPing       *self,
              const guint8 *icmp,
              gsize         len,
              int           ttl,
              gint64        rx_rt_ns,
              QfRing       *ring,
              Counters     *c)
{
  guint8 type = icmp[0];
  guint16 ident, seq;
  const guint8 *payload = icmp + ICMP_HEADER;
  gsize payload_len = len - ICMP_HEADER;
  Slot *slot;
  gint64 rtt_ns, rtt_us;
  gboolean dup;

  if (self->family == AF_INET6 ? type != ICMP6_ECHO_REPLY : type != ICMP_ECHOREPLY)
    {
      if (self->family == AF_INET6 ? (type == ICMP6_DST_UNREACH || type == ICMP6_TIME_EXCEEDED)
                                   : (type == ICMP_DEST_UNREACH || type == ICMP_TIME_EXCEEDED))
        {
          /* Ours only when the quoted request carries our id (raw sockets see everything). */
          const guint8 *inner = icmp + ICMP_HEADER;
          gsize inner_len = len - ICMP_HEADER;
          if (self->family == AF_INET && inner_len >= 20)
            {
              gsize ihl = (inner[0] & 0x0f) * 4;
              if (inner_len >= ihl + ICMP_HEADER
                  && ((inner[ihl + 4] << 8) | inner[ihl + 5]) == self->ident)
                c->errors++;
            }
          else if (self->family == AF_INET6 && inner_len >= 40 + ICMP_HEADER
                   && ((inner[40 + 4] << 8) | inner[40 + 5]) == self->ident)
            c->errors++;
        }
      return;
    }
  ident = (icmp[4] << 8) | icmp[5];
  seq = (icmp[6] << 8) | icmp[7];
  if (self->raw && ident != self->ident)
    return;
  if (payload_len != self->config.size)
    return;
  if (self->config.size >= TAG_BYTES && memcmp (payload, &self->tag, TAG_BYTES) != 0)
    return;
  slot = &self->slots[seq];
  if (slot->index == 0)
    return;
  if (self->config.size >= TAG_BYTES + INDEX_BYTES)
    {
      guint64 be;
      memcpy (&be, payload + TAG_BYTES, INDEX_BYTES);
      if (GUINT64_FROM_BE (be) + 1 != slot->index)
        return;   /* a reply to a request 65536 sequences ago */
    }

  rtt_ns = rx_rt_ns - slot->tx_rt_ns;
  if (rtt_ns < 0)
    rtt_ns = 0;
  rtt_us = rtt_ns / 1000;
  dup = slot->received;

  /* iputils: every timed reply, duplicates too, enters tsum/tsum2/min/max. */
  c->tsum_us += rtt_us;
  c->tsum2_us2 += rtt_us * rtt_us;
  if (c->received + c->duplicates == 0 || rtt_us < c->tmin_us)
    c->tmin_us = rtt_us;
  if (c->received + c->duplicates == 0 || rtt_us > c->tmax_us)
    c->tmax_us = rtt_us;
  if (dup)
    c->duplicates++;
  else
    {
      slot->received = TRUE;
      c->received++;
      g_array_append_val (self->rtts_ns, rtt_ns);
      qf_histogram_add (self->hist, rtt_ns);
    }
  c->last_event_mono = qf_clock_now_ns ();
  if (ring != NULL)
    {
      QfSample s = { c->last_event_mono, rtt_ns, seq, (dup ? 1u : 0u) | ((guint32) ttl << 8) };
      qf_ring_push (ring, &s);
    }
}

static void
drain (QfPing   *self,
       QfRing   *ring,
       Counters *c)
{
  for (guint budget = 0; budget < 4096; budget++)
    {
      union { char buf[CMSG_SPACE (sizeof (struct timespec)) + CMSG_SPACE (sizeof (int)) * 2];
              struct cmsghdr align; } control;
      struct sockaddr_storage from;
      struct iovec iov = { self->rx_buf, self->rx_cap };
      struct msghdr msg = { 0 };
      gint64 rx_rt_ns = 0;
      int ttl = 0;
      ssize_t n;
      const guint8 *icmp;
      gsize len;

      msg.msg_name = &from;
      msg.msg_namelen = sizeof from;
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control.buf;
      msg.msg_controllen = sizeof control.buf;
      n = recvmsg (self->fd, &msg, MSG_DONTWAIT);
      if (n < 0)
        {
          if (errno == EAGAIN)
            return;
          if (errno != EINTR)
            c->errors++;   /* an ICMP error reported on a ping socket */
          continue;
        }
      for (struct cmsghdr *cm = CMSG_FIRSTHDR (&msg); cm != NULL; cm = CMSG_NXTHDR (&msg, cm))
        {
          if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS)
            {
              struct timespec ts;
              memcpy (&ts, CMSG_DATA (cm), sizeof ts);
              rx_rt_ns = qf_timespec_to_ns (&ts);
            }
          else if ((cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TTL)
                   || (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_HOPLIMIT))
            memcpy (&ttl, CMSG_DATA (cm), sizeof ttl);
        }
      if (rx_rt_ns == 0)
        rx_rt_ns = realtime_ns ();

      icmp = self->rx_buf;
      len = (gsize) n;
      if (len > self->rx_cap)
        continue;
      if (self->raw && self->family == AF_INET)
        {
          gsize ihl;
          if (len < 20)
            continue;
          ihl = (icmp[0] & 0x0f) * 4;
          if (len < ihl + ICMP_HEADER)
            continue;
          ttl = icmp[8];
          icmp += ihl;
          len -= ihl;
        }
      if (len < ICMP_HEADER)
        continue;
      if (self->raw && from.ss_family == self->family)
        {
          /* A raw socket sees every host's ICMP: only the peer's replies count. */
          gboolean same = self->family == AF_INET
            ? ((struct sockaddr_in *) &from)->sin_addr.s_addr
                == ((struct sockaddr_in *) &self->addr)->sin_addr.s_addr
            : memcmp (&((struct sockaddr_in6 *) &from)->sin6_addr,
                      &((struct sockaddr_in6 *) &self->addr)->sin6_addr,
                      sizeof (struct in6_addr)) == 0;
          guint8 type = icmp[0];
          gboolean is_reply = type == ICMP_ECHOREPLY || type == ICMP6_ECHO_REPLY;
          if (!same && is_reply)
            continue;
        }
      handle_reply (self, icmp, len, ttl, rx_rt_ns, ring, c);
    }
}

static int
cmp_gint64 (const void *a,
            const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x > y ? 1 : x < y ? -1 : 0;
}

static gint64
nearest_rank (const gint64 *sorted,
              guint         n,
              gdouble       fraction)
{
  guint64 rank;

  if (n == 0)
    return 0;
  rank = (guint64) ceil (fraction * n);
  rank = CLAMP (rank, 1, n);
  return sorted[rank - 1];
}

/* The result of a run from its counters: iputils' figures and our percentiles. */
static void
fill_result (QfPing         *self,
             const Counters *c,
             gint64          start,
             gint64          last_send,
             QfPingResult   *result)
{
  g_autofree char *address = qf_net_address_to_string ((struct sockaddr *) &self->addr, FALSE);

  g_strlcpy (result->address, address, sizeof result->address);
  result->raw_socket = self->raw;
  result->transmitted = c->transmitted;
  result->received = c->received;
  result->duplicates = c->duplicates;
  result->errors = c->errors;
  result->loss_pct = c->transmitted
    ? (gdouble) (gfloat) (((gint64) (c->transmitted - c->received)) * 100.0 / c->transmitted) : 0;
  {
    /* never before the start: a run can end before its first request left */
    gint64 end = MAX (MAX (c->last_event_mono, last_send), start);
    result->time_ms = c->transmitted
                        ? (end - start + 500 * QF_NSEC_PER_USEC) / QF_NSEC_PER_MSEC : 0;
  }
  if (c->received + c->duplicates > 0)
    {
      gint64 total = (gint64) (c->received + c->duplicates);
      result->min_us = c->tmin_us;
      result->max_us = c->tmax_us;
      result->avg_us = c->tsum_us / total;
      result->mdev_us = qf_ping_iputils_mdev (c->tsum_us, c->tsum2_us2, total);
    }
  if (self->rtts_ns->len > 0)
    {
      gint64 *v = (gint64 *) self->rtts_ns->data;
      qsort (v, self->rtts_ns->len, sizeof (gint64), cmp_gint64);
      result->p50_ns = nearest_rank (v, self->rtts_ns->len, 0.50);
      result->p99_ns = nearest_rank (v, self->rtts_ns->len, 0.99);
      result->p999_ns = nearest_rank (v, self->rtts_ns->len, 0.999);
    }
}

/* How the run ended, as an error: stopped, or no reply at all. */
static gboolean
run_outcome (QfPing              *self,
             gboolean             cancelled,
             const QfPingResult  *result,
             GError             **error)
{
  if (cancelled)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_CANCELLED, _("Stopped"));
      return FALSE;
    }
  if (result->received == 0)
    {
      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                   _("No reply from %s (%s): %llu requests sent, none answered. Check the cable, "
                     "the address and the peer's firewall."),
                   self->host, result->address, (unsigned long long) result->transmitted);
      return FALSE;
    }
  return TRUE;
}

gboolean
qf_ping_run (QfPing             *self,
             QfRing             *ring,
             const gint         *cancel,
             QfPingProgressFunc  progress,
             gpointer            user_data,
             QfPingResult       *result,
             GError            **error)
{
  Counters c = { 0 };
  gint64 interval_ns, timeout_ns, start, deadline, next_send, next_progress, last_send = 0;
  guint64 index = 0;
  gboolean cancelled = FALSE, fatal = FALSE, ok = TRUE;

  g_return_val_if_fail (self != NULL && result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  g_array_set_size (self->rtts_ns, 0);
  qf_histogram_reset (self->hist);
  memset (self->slots, 0, sizeof (Slot) * N_SLOTS);

  interval_ns = (gint64) (self->config.interval_ms * QF_NSEC_PER_MSEC);
  timeout_ns = (gint64) (self->config.timeout_s * QF_NSEC_PER_SEC);
  start = qf_clock_now_ns ();
  deadline = self->config.deadline_s > 0
               ? start + (gint64) (self->config.deadline_s * QF_NSEC_PER_SEC) : G_MAXINT64;
  next_send = start;
  next_progress = start + PROGRESS_NS;

  for (;;)
    {
      gint64 now = qf_clock_now_ns (), wake;
      gboolean sending = self->config.count == 0 || index < self->config.count;
      struct pollfd pfd = { self->fd, POLLIN, 0 };
      struct timespec ts;

      if (cancel != NULL && g_atomic_int_get (cancel))
        {
          cancelled = TRUE;
          break;
        }
      if (now >= deadline)
        break;
      if (sending && now >= next_send)
        {
          last_send = now;   /* a request that could not be sent still ends the run's time */
          if (!send_one (self, index, &c, &fatal, error))
            {
              ok = FALSE;
              break;
            }
          index++;
          next_send += interval_ns;
          /* The schedule is kept, but a thread that was descheduled does not burst to catch up. */
          if (next_send < now - interval_ns)
            next_send = now;
          continue;
        }
      if (!sending)
        {
          if (c.received >= c.transmitted || now >= last_send + timeout_ns)
            break;
          wake = last_send + timeout_ns;
        }
      else
        wake = next_send;
      wake = MIN (wake, deadline);
      wake = MIN (wake, next_progress);
      ts = qf_ns_to_timespec (MAX (wake - now, 0));
      if (ppoll (&pfd, 1, &ts, NULL) > 0)
        drain (self, ring, &c);
      if (progress != NULL && qf_clock_now_ns () >= next_progress)
        {
          gdouble fraction = 0;
          if (self->config.count > 0)
            fraction = (gdouble) index / self->config.count;
          else if (self->config.deadline_s > 0)
            fraction = (gdouble) (now - start) / (deadline - start);
          progress (CLAMP (fraction, 0, 1), c.transmitted, c.received, user_data);
          next_progress += PROGRESS_NS;
        }
    }
  drain (self, ring, &c);

  fill_result (self, &c, start, last_send, result);
  if (progress != NULL)
    progress (1.0, c.transmitted, c.received, user_data);
  return ok && run_outcome (self, cancelled, result, error);
}
