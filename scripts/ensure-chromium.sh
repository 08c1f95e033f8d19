# Sourced by the tiers that drive a browser (the viewer's tests, `npm run bench:viewer`).
# ensure_chromium: CHROMIUM_PATH exported, naming Chromium; Debian's `chromium` package is installed when the
# machine has none (Playwright's own browser download cannot be reached here; docs/testing.md "Browser").
ensure_chromium() {
  if [ -n "${CHROMIUM_PATH:-}" ]; then return 0; fi
  if ! command -v chromium >/dev/null; then
    (
      source infra/local/lib/common.sh
      init_data_dir
      need_pkg browser chromium command -v chromium
      apt_install_queued
    ) || return 1
  fi
  CHROMIUM_PATH="$(command -v chromium)"
  export CHROMIUM_PATH
}
