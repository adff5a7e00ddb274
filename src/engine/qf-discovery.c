/* qf-discovery.c — what the announcer and the browser share: helper records, the interfaces
 * that carry mDNS and the sockets that talk it (src/engine). See qf-discovery.h and
 * qf-discovery-private.h.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <string.h>
#include <unistd.h>

#include "qf-discovery-private.h"
#include "qf-i18n.h"
#include "qf-mdns.h"
#include "qf-net.h"

/* ---- helper records ------------------------------------------------------------------------- */

void
qf_helper_info_free (QfHelperInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->instance);
  g_free (info->name);
  g_strfreev (info->addresses);
  g_free (info->iface);
  g_free (info->version);
  g_free (info);
}

QfHelperInfo *
qf_helper_info_copy (const QfHelperInfo *info)
{
  QfHelperInfo *copy = g_new0 (QfHelperInfo, 1);

  *copy = *info;
  copy->instance = g_strdup (info->instance);
  copy->name = g_strdup (info->name);
  copy->addresses = g_strdupv (info->addresses);
  copy->iface = g_strdup (info->iface);
  copy->version = g_strdup (info->version);
  return copy;
}

static gboolean
is_link_local (const char *literal)
{
  return g_ascii_strncasecmp (literal, "fe8", 3) == 0 || g_ascii_strncasecmp (literal, "fe9", 3) == 0
         || g_ascii_strncasecmp (literal, "fea", 3) == 0 || g_ascii_strncasecmp (literal, "feb", 3) == 0
         || g_str_has_prefix (literal, "169.254.");
}

const char *
qf_helper_info_best_address (const QfHelperInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);

  if (info->addresses == NULL || info->addresses[0] == NULL)
    return NULL;
  for (guint i = 0; info->addresses[i] != NULL; i++)
    if (!is_link_local (info->addresses[i]))
      return info->addresses[i];
  /* Only link-local: an IPv6 one carries its scope, so it is the one to use. */
  for (guint i = 0; info->addresses[i] != NULL; i++)
    if (strchr (info->addresses[i], '%') != NULL)
      return info->addresses[i];
  return info->addresses[0];
}

/* ---- text from the network ----------------------------------------------------------------- */

char *
_qf_discovery_text_cut (const char *text,
                        gsize       max_bytes)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  const char *end = valid;

  while (*end != '\0' && (gsize) (g_utf8_next_char (end) - valid) <= max_bytes)
    end = g_utf8_next_char (end);
  return g_strndup (valid, (gsize) (end - valid));
}

/* ---- interfaces ----------------------------------------------------------------------------- */

static QfMdnsLink *
find_or_add_link (GArray     *links,
                  const char *name)
{
  QfMdnsLink link = { 0 };

  for (guint i = 0; i < links->len; i++)
    if (g_str_equal (g_array_index (links, QfMdnsLink, i).name, name))
      return &g_array_index (links, QfMdnsLink, i);
  link.ifindex = (int) if_nametoindex (name);
  if (link.ifindex == 0)
    return NULL;
  g_strlcpy (link.name, name, sizeof link.name);
  g_array_append_val (links, link);
  return &g_array_index (links, QfMdnsLink, links->len - 1);
}

static void
add_link_address (QfMdnsLink           *link,
                  const struct ifaddrs *ifa)
{
  if (ifa->ifa_addr->sa_family == AF_INET && link->n_v4 < QF_MDNS_LINK_MAX_ADDRESSES)
    {
      link->v4[link->n_v4] = ((const struct sockaddr_in *) ifa->ifa_addr)->sin_addr;
      if (ifa->ifa_netmask != NULL)
        link->v4_mask[link->n_v4] = ((const struct sockaddr_in *) ifa->ifa_netmask)->sin_addr;
      link->n_v4++;
    }
  else if (ifa->ifa_addr->sa_family == AF_INET6 && link->n_v6 < QF_MDNS_LINK_MAX_ADDRESSES)
    {
      link->v6[link->n_v6] = ((const struct sockaddr_in6 *) ifa->ifa_addr)->sin6_addr;
      if (ifa->ifa_netmask != NULL)
        link->v6_mask[link->n_v6] = ((const struct sockaddr_in6 *) ifa->ifa_netmask)->sin6_addr;
      link->n_v6++;
    }
}

GArray *
_qf_mdns_links_scan (const char  *only,
                     GError     **error)
{
  GArray *links = g_array_new (FALSE, TRUE, sizeof (QfMdnsLink));
  struct ifaddrs *list = NULL;

  if (getifaddrs (&list) != 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot list the network interfaces"));
      g_array_unref (links);
      return NULL;
    }
  for (struct ifaddrs *ifa = list; ifa != NULL; ifa = ifa->ifa_next)
    {
      gboolean named = only != NULL && g_strcmp0 (ifa->ifa_name, only) == 0;
      QfMdnsLink *link;

      if (only != NULL && !named)
        continue;
      if (!(ifa->ifa_flags & IFF_UP) || (!named && (ifa->ifa_flags & IFF_LOOPBACK))
          || (!named && !(ifa->ifa_flags & IFF_MULTICAST)))
        continue;
      link = find_or_add_link (links, ifa->ifa_name);
      if (link != NULL)
        link->running = (ifa->ifa_flags & IFF_RUNNING) != 0;
      if (link != NULL && ifa->ifa_addr != NULL)
        add_link_address (link, ifa);
    }
  freeifaddrs (list);
  return links;
}

static gboolean
masked_equal (const guint8 *a,
              const guint8 *b,
              const guint8 *mask,
              gsize         len)
{
  for (gsize i = 0; i < len; i++)
    if ((a[i] & mask[i]) != (b[i] & mask[i]))
      return FALSE;
  return TRUE;
}

gboolean
_qf_mdns_link_has_source (const QfMdnsLink      *link,
                          const struct sockaddr *from)
{
  if (from->sa_family == AF_INET6)
    {
      const struct in6_addr *a = &((const struct sockaddr_in6 *) from)->sin6_addr;

      if (IN6_IS_ADDR_LINKLOCAL (a))
        return TRUE;
      if (IN6_IS_ADDR_V4MAPPED (a) || IN6_IS_ADDR_UNSPECIFIED (a) || IN6_IS_ADDR_MULTICAST (a))
        return FALSE;
      for (guint i = 0; i < link->n_v6; i++)
        if (!IN6_IS_ADDR_LINKLOCAL (&link->v6[i])
            && masked_equal (a->s6_addr, link->v6[i].s6_addr, link->v6_mask[i].s6_addr, 16))
          return TRUE;
      return FALSE;
    }
  if (from->sa_family == AF_INET)
    {
      const struct in_addr *a = &((const struct sockaddr_in *) from)->sin_addr;
      guint32 host = ntohl (a->s_addr);

      if ((host & 0xFFFF0000u) == 0xA9FE0000u)   /* 169.254/16 */
        return TRUE;
      if (host == 0 || (host >> 28) == 0xE)
        return FALSE;
      for (guint i = 0; i < link->n_v4; i++)
        if (masked_equal ((const guint8 *) a, (const guint8 *) &link->v4[i],
                          (const guint8 *) &link->v4_mask[i], 4))
          return TRUE;
    }
  return FALSE;
}

/* ---- sockets -------------------------------------------------------------------------------- */

static gboolean
set_int (int fd, int level, int name, int value)
{
  return setsockopt (fd, level, name, &value, sizeof value) == 0;
}

static gboolean
configure_socket (int      fd,
                  int      family,
                  guint16  port)
{
  gboolean ok = TRUE;

  if (port != 0)
    ok = set_int (fd, SOL_SOCKET, SO_REUSEADDR, 1) && set_int (fd, SOL_SOCKET, SO_REUSEPORT, 1);
  if (family == AF_INET6)
    return ok && set_int (fd, IPPROTO_IPV6, IPV6_V6ONLY, 1)
           && set_int (fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1)
           && set_int (fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1)
           && set_int (fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 255)
           && set_int (fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, 255)
           && set_int (fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 1);
  return ok && set_int (fd, IPPROTO_IP, IP_PKTINFO, 1)
         && set_int (fd, IPPROTO_IP, IP_RECVTTL, 1)
         && set_int (fd, IPPROTO_IP, IP_MULTICAST_TTL, 255)
         && set_int (fd, IPPROTO_IP, IP_TTL, 255)
         && set_int (fd, IPPROTO_IP, IP_MULTICAST_LOOP, 1);
}

int
_qf_mdns_socket_open (int       family,
                      guint16   port,
                      GError  **error)
{
  struct sockaddr_storage ss = { 0 };
  socklen_t len;
  int fd = socket (family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_UDP);

  if (fd < 0)
    {
      qf_net_set_errno_error (error, errno, _("Cannot open a socket for discovery"));
      return -1;
    }
  if (family == AF_INET6)
    {
      struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons (port);
      len = sizeof *in6;
    }
  else
    {
      struct sockaddr_in *in = (struct sockaddr_in *) &ss;
      in->sin_family = AF_INET;
      in->sin_port = htons (port);
      len = sizeof *in;
    }
  if (!configure_socket (fd, family, port) || bind (fd, (struct sockaddr *) &ss, len) != 0)
    {
      int errsv = errno;
      close (fd);
      qf_net_set_errno_error (error, errsv,
                              _("Cannot open UDP port %u for discovery (mDNS); another program "
                                "may hold it without sharing it"), port);
      return -1;
    }
  return fd;
}

gboolean
_qf_mdns_socket_join (int      fd,
                      int      family,
                      int      ifindex,
                      gboolean join)
{
  if (family == AF_INET6)
    {
      struct ipv6_mreq mreq = { 0 };

      inet_pton (AF_INET6, QF_MDNS_GROUP_V6, &mreq.ipv6mr_multiaddr);
      mreq.ipv6mr_interface = (unsigned) ifindex;
      return setsockopt (fd, IPPROTO_IPV6, join ? IPV6_ADD_MEMBERSHIP : IPV6_DROP_MEMBERSHIP,
                         &mreq, sizeof mreq) == 0 || (join && errno == EADDRINUSE);
    }
  else
    {
      struct ip_mreqn mreq = { 0 };

      inet_pton (AF_INET, QF_MDNS_GROUP_V4, &mreq.imr_multiaddr);
      mreq.imr_ifindex = ifindex;
      return setsockopt (fd, IPPROTO_IP, join ? IP_ADD_MEMBERSHIP : IP_DROP_MEMBERSHIP,
                         &mreq, sizeof mreq) == 0 || (join && errno == EADDRINUSE);
    }
}

gssize
_qf_mdns_socket_recv (int                      fd,
                      guint8                  *buf,
                      gsize                    cap,
                      struct sockaddr_storage *from,
                      int                     *ifindex,
                      int                     *hop_limit)
{
  union { struct cmsghdr align; char data[256]; } control;
  struct iovec iov = { buf, cap };
  struct msghdr msg = {
    .msg_name = from, .msg_namelen = sizeof *from,
    .msg_iov = &iov, .msg_iovlen = 1,
    .msg_control = control.data, .msg_controllen = sizeof control.data,
  };
  gssize n;

  memset (from, 0, sizeof *from);
  *ifindex = 0;
  *hop_limit = -1;
  n = recvmsg (fd, &msg, MSG_DONTWAIT);
  if (n < 0)
    return -1;
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
    return 0;   /* larger than any mDNS packet: dropped as malformed */
  for (struct cmsghdr *c = CMSG_FIRSTHDR (&msg); c != NULL; c = CMSG_NXTHDR (&msg, c))
    {
      if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO)
        {
          struct in6_pktinfo info;
          memcpy (&info, CMSG_DATA (c), sizeof info);
          *ifindex = (int) info.ipi6_ifindex;
        }
      else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
        {
          struct in_pktinfo info;
          memcpy (&info, CMSG_DATA (c), sizeof info);
          *ifindex = info.ipi_ifindex;
        }
      else if ((c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT)
               || (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL))
        memcpy (hop_limit, CMSG_DATA (c), sizeof *hop_limit);
    }
  return n;
}

gboolean
_qf_mdns_socket_multicast (int           fd,
                           int           family,
                           int           ifindex,
                           const guint8 *data,
                           gsize         len)
{
  union { struct cmsghdr align; char data[CMSG_SPACE (sizeof (struct in_pktinfo))]; } control;
  struct sockaddr_storage to = { 0 };
  struct iovec iov = { (void *) data, len };
  struct msghdr msg = { .msg_name = &to, .msg_iov = &iov, .msg_iovlen = 1 };

  if (family == AF_INET6)
    {
      struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &to;
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons (QF_MDNS_PORT);
      in6->sin6_scope_id = (uint32_t) ifindex;
      inet_pton (AF_INET6, QF_MDNS_GROUP_V6, &in6->sin6_addr);
      msg.msg_namelen = sizeof *in6;
    }
  else
    {
      struct sockaddr_in *in = (struct sockaddr_in *) &to;
      struct in_pktinfo info = { .ipi_ifindex = ifindex };
      struct cmsghdr *c;

      in->sin_family = AF_INET;
      in->sin_port = htons (QF_MDNS_PORT);
      inet_pton (AF_INET, QF_MDNS_GROUP_V4, &in->sin_addr);
      msg.msg_namelen = sizeof *in;
      memset (&control, 0, sizeof control);
      msg.msg_control = control.data;
      msg.msg_controllen = sizeof control.data;
      c = CMSG_FIRSTHDR (&msg);
      c->cmsg_level = IPPROTO_IP;
      c->cmsg_type = IP_PKTINFO;
      c->cmsg_len = CMSG_LEN (sizeof info);
      memcpy (CMSG_DATA (c), &info, sizeof info);
    }
  return sendmsg (fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) == (gssize) len;
}

gboolean
_qf_mdns_socket_unicast (int                    fd,
                         const struct sockaddr *to,
                         const guint8          *data,
                         gsize                  len)
{
  socklen_t to_len = to->sa_family == AF_INET6 ? sizeof (struct sockaddr_in6)
                                               : sizeof (struct sockaddr_in);

  return sendto (fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL, to, to_len) == (gssize) len;
}
