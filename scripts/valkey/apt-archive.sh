# Sourced by the Valkey installers: the Debian archive this machine's apt already uses, so
# that a suite it lacks (bookworm-backports, sid) comes from the same archive and the project
# names no archive of its own.
#
#   debian_archive_uri SUITE [APT_DIR]
#
# Prints the URI of the first enabled `deb` entry that serves SUITE, read from APT_DIR's
# sources.list and sources.list.d/*.list (one-line format) and sources.list.d/*.sources
# (deb822), in that order (default APT_DIR /etc/apt). Returns 1, printing nothing, when no
# entry serves it.

debian_archive_uri() {
  local suite="$1" dir="${2:-/etc/apt}" file uri
  for file in "$dir/sources.list" "$dir"/sources.list.d/*.list "$dir"/sources.list.d/*.sources; do
    [ -r "$file" ] || continue
    case "$file" in
      *.sources) uri="$(awk -v suite="$suite" "$_DEB822_URI" "$file")" ;;
      *) uri="$(awk -v suite="$suite" "$_ONE_LINE_URI" "$file")" ;;
    esac
    if [ -n "$uri" ]; then
      echo "$uri"
      return 0
    fi
  done
  return 1
}

# deb822: stanzas of `Field: value` lines, split by blank lines; `#` lines are comments and
# lines that start with a space continue the field before (a Signed-By key block).
_DEB822_URI='
function has(list, word) { return index(" " list " ", " " word " ") > 0 }
function stanza() {
  if (has(types, "deb") && enabled != "no" && has(suites, suite) && uris != "") {
    split(uris, first, " ")
    print first[1]
    found = 1
    exit
  }
  types = ""; uris = ""; suites = ""; enabled = ""
}
/^#/ { next }
/^[ \t]*$/ { stanza(); next }
/^[ \t]/ { next }
{
  colon = index($0, ":")
  if (colon == 0) next
  name = tolower(substr($0, 1, colon - 1))
  value = substr($0, colon + 1)
  gsub(/^[ \t]+|[ \t]+$/, "", value)
  gsub(/[ \t]+/, " ", value)
  if (name == "types") types = value
  else if (name == "uris") uris = value
  else if (name == "suites") suites = value
  else if (name == "enabled") enabled = tolower(value)
}
END { if (!found) stanza() }
'

# One-line format: `deb [options] URI SUITE COMPONENT...`; the options may hold spaces.
_ONE_LINE_URI='
{
  sub(/#.*/, "")
  if ($1 != "deb") next
  i = 2
  if (substr($i, 1, 1) == "[") { while (i <= NF && substr($i, length($i)) != "]") i++; i++ }
  if ($(i + 1) == suite) { print $i; exit }
}
'
