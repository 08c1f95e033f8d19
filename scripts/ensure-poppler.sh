# Sourced by scripts/test.sh before the tiers.
# ensure_poppler: Debian's poppler-utils is installed (pdftotext, pdftoppm), with apt when the machine has no
# pdftotext. The patient access report's PDF is read back with `pdftotext -layout` in its tests, and its picture in
# docs/reports is made with pdftoppm (scripts/patient-access-picture.ts).
ensure_poppler() {
  if command -v pdftotext >/dev/null && command -v pdftoppm >/dev/null; then return 0; fi
  (
    source infra/local/lib/common.sh
    init_data_dir
    need_pkg pdf poppler-utils command -v pdftotext
    apt_install_queued
  )
}
