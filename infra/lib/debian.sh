# Shared by the install scripts (source it after defining log()): where Debian packages come from.

debian_mirror() {
  # First Debian archive URI among the machine's apt sources (deb822 or one-line format); never a
  # host name written into the repo.
  local uri
  uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
    grep -v -- '-security' | head -n 1 || true)
  if [ -z "$uri" ]; then
    uri=$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' |
      grep -v -- '-security' | grep -i debian | head -n 1 || true)
  fi
  [ -n "$uri" ] || { log "no Debian mirror found in /etc/apt/sources.list*"; exit 1; }
  printf '%s\n' "$uri"
}
