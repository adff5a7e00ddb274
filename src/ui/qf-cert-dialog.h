/* qf-cert-dialog.h — create or import the installer's signing certificate (src/ui). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define QF_TYPE_CERT_DIALOG (qf_cert_dialog_get_type ())
G_DECLARE_FINAL_TYPE (QfCertDialog, qf_cert_dialog, QF, CERT_DIALOG, AdwWindow)

/* A modal dialog over parent. name prefills the holder's name (may be NULL); the company is
 * the installer's own, remembered (the `company` setting, else the certificate in use), never
 * the customer's;
 * intro says why it is shown. It emits "finished" once, with TRUE when a certificate is now in
 * the store, FALSE when the person cancelled; then it closes itself. */
QfCertDialog *qf_cert_dialog_new (GtkWindow  *parent,
                                  const char *intro,
                                  const char *name);

G_END_DECLS
