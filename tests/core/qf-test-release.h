/* qf-test-release.h — fixture PCs running a given release: a temporary root whose proc and sys
 * are a fixture PC's and whose etc/os-release is that release's, as its base-files package ships
 * it (tests/core). */
#pragma once

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

typedef struct
{
  const char *codename;
  const char *os_release;     /* the file's text */
  const char *id;             /* what the session records */
  const char *version_id;
  const char *pretty_name;
  const char *install;        /* what the kernel advice must say */
  const char *never;          /* what it must not say */
} QfTestRelease;

static const QfTestRelease qf_test_releases[] = {
  { "bookworm",
    "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
    "VERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n"
    "HOME_URL=\"https://www.debian.org/\"\n",
    "debian", "12", "Debian GNU/Linux 12 (bookworm)",
    "sudo apt install linux-image-rt-amd64", "pro enable" },
  { "trixie",
    "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"13\"\n"
    "VERSION=\"13 (trixie)\"\nVERSION_CODENAME=trixie\nDEBIAN_VERSION_FULL=13.2\nID=debian\n",
    "debian", "13", "Debian GNU/Linux 13 (trixie)",
    "sudo apt install linux-image-rt-amd64", "linux-realtime" },
  { "jammy",
    "PRETTY_NAME=\"Ubuntu 22.04.5 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\n"
    "VERSION=\"22.04.5 LTS (Jammy Jellyfish)\"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n"
    "UBUNTU_CODENAME=jammy\n",
    "ubuntu", "22.04", "Ubuntu 22.04.5 LTS",
    "sudo pro enable realtime-kernel", "linux-image-rt-amd64" },
  { "noble",
    "PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
    "VERSION=\"24.04.3 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\n"
    "UBUNTU_CODENAME=noble\nLOGO=ubuntu-logo\n",
    "ubuntu", "24.04", "Ubuntu 24.04.3 LTS",
    "sudo apt install linux-lowlatency", "linux-image-rt-amd64" },
  { "resolute",
    "PRETTY_NAME=\"Ubuntu 26.04.1 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"26.04\"\n"
    "VERSION=\"26.04.1 LTS (Resolute Raccoon)\"\nVERSION_CODENAME=resolute\nID=ubuntu\n"
    "ID_LIKE=debian\nUBUNTU_CODENAME=resolute\nLOGO=ubuntu-logo\n",
    "ubuntu", "26.04", "Ubuntu 26.04.1 LTS",
    "sudo apt install linux-realtime", "pro enable" },
  /* a release the table does not know: PREEMPT_RT named, no package, no command */
  { "fedora",
    "NAME=\"Fedora Linux\"\nVERSION=\"41 (Workstation Edition)\"\nID=fedora\nVERSION_ID=41\n"
    "PRETTY_NAME='Fedora Linux 41 (Workstation Edition)'\n",
    "fedora", "41", "Fedora Linux 41 (Workstation Edition)",
    "PREEMPT_RT", "apt install" },
};

static inline const QfTestRelease *
qf_test_release (const char *codename)
{
  for (gsize i = 0; i < G_N_ELEMENTS (qf_test_releases); i++)
    if (g_str_equal (qf_test_releases[i].codename, codename))
      return &qf_test_releases[i];
  g_assert_not_reached ();
}

/* A new temporary root: the fixture PC pc's proc and sys, and release's etc/os-release.
 * qf_test_release_root_free removes it. */
static inline char *
qf_test_release_root (const char          *pc,
                      const QfTestRelease *release)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *fixture = g_test_build_filename (G_TEST_DIST, "core", "fixtures", pc, NULL);
  char *root = g_dir_make_tmp ("qf-release-XXXXXX", &error);
  const char *dirs[] = { "proc", "sys" };

  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *target = g_build_filename (fixture, dirs[i], NULL);
      g_autofree char *link = g_build_filename (root, dirs[i], NULL);

      if (g_file_test (target, G_FILE_TEST_IS_DIR))
        g_assert_cmpint (symlink (target, link), ==, 0);
    }
  if (release != NULL)
    {
      g_autofree char *etc = g_build_filename (root, "etc", NULL);
      g_autofree char *file = g_build_filename (etc, "os-release", NULL);

      g_assert_cmpint (g_mkdir (etc, 0755), ==, 0);
      g_assert_true (g_file_set_contents (file, release->os_release, -1, &error));
      g_assert_no_error (error);
    }
  return root;
}

static inline void
qf_test_release_root_free (char *root)
{
  const char *names[] = { "etc/os-release", "etc", "proc", "sys" };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (root, names[i], NULL);
      if (g_remove (path) != 0 && errno != ENOENT)
        g_assert_cmpint (g_rmdir (path), ==, 0);
    }
  g_assert_cmpint (g_rmdir (root), ==, 0);
  g_free (root);
}
