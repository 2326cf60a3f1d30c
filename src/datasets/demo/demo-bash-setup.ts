/**
 * The setup script of `demo/bash`: builds /demo, a small made-up project (a lighthouse keeper's files),
 * run as root in a fresh root like the upstream NL2Bash scripts. Every byte, mode and time stamp it
 * creates is fixed, so the same tasks give the same outputs everywhere.
 */
export const DEMO_BASH_SETUP = String.raw`#!/bin/bash
# intercode demo/bash file system: everything lives under /demo.
set -eu
umask 022
rm -rf /demo
mkdir -p /demo/notes /demo/logs/old /demo/data /demo/src/lib /demo/config /demo/scripts /demo/photos \
  /demo/tmp/cache /demo/archive

cat > /demo/README.txt <<'EOF'
Lighthouse demo project
=======================
A small, made-up project used by the intercode demo tasks.

notes/    plans and meeting notes
logs/     service logs, old ones compressed
data/     small data files
src/      the keeper's tools
config/   settings
scripts/  maintenance scripts
EOF

cat > /demo/notes/todo.txt <<'EOF'
buy lamp oil
fix the fog horn
paint the railing
deadline: inventory report
call the harbour master
EOF

cat > /demo/notes/meeting.txt <<'EOF'
Attendees: ada, brook, cyd
The deadline for the lens cleaning schedule moved to friday.
brook will order spare bulbs.
ada reviews the keeper rota.
EOF

: > /demo/notes/draft.txt

cat > /demo/notes/ideas.md <<'EOF'
# Ideas
- solar panels on the roof
- a visitor logbook
- automatic fog detection
EOF

cat > /demo/notes/visitors.md <<'EOF'
# Visitors
Groups book one week ahead; there is no deadline for single visitors.
Opening hours are posted at the gate.
EOF

log() { printf '2024-05-01 %s %-5s %s\n' "$@"; }
{
  log 06:00:00 INFO 'keeper: shift started'
  log 06:00:05 INFO 'lamp: switched on'
  log 06:10:00 DEBUG 'lamp: bulb temperature 61C'
  log 06:15:12 WARN 'fog: visibility below 500 m'
  log 06:15:13 INFO 'horn: sounding every 30 s'
  log 06:40:00 INFO 'lamp: rotation 4.0 rpm'
  log 07:02:41 ERROR 'horn: compressor pressure low'
  log 07:02:42 WARN 'horn: switching to backup compressor'
  log 07:03:00 INFO 'horn: backup compressor running'
  log 07:30:00 INFO 'radio: weather report received'
  log 08:00:00 WARN 'fog: visibility below 200 m'
  log 08:12:09 ERROR 'radio: no answer from harbour'
  log 08:12:30 INFO 'radio: harbour answered on channel 16'
  log 09:00:00 INFO 'fog: lifting'
  log 09:00:01 INFO 'horn: stopped'
  log 09:45:27 WARN 'lamp: rotation 3.6 rpm'
  log 09:46:00 ERROR 'lamp: motor overheating'
  log 09:46:30 INFO 'lamp: motor cooled down'
  log 10:00:00 INFO 'keeper: logbook signed'
  log 10:00:02 INFO 'keeper: shift ended'
} > /demo/logs/app.log

req() { printf '%s %s %s %s %s\n' "$@"; }
{
  req 10.0.0.5 GET /index.html 200 512
  req 10.0.0.7 GET /tides.json 200 2048
  req 10.0.0.5 GET /weather.json 200 1024
  req 10.0.0.9 POST /logbook 201 64
  req 10.0.0.5 GET /index.html 304 0
  req 10.0.0.7 GET /missing.png 404 128
  req 10.0.0.5 GET /tides.json 200 2048
  req 10.0.0.12 GET /index.html 200 512
  req 10.0.0.7 GET /tides.json 200 2048
  req 10.0.0.5 POST /logbook 201 64
  req 10.0.0.12 GET /weather.json 200 1024
} > /demo/logs/access.log

{
  log 21:00:00 INFO 'keeper: night shift started'
  log 22:30:00 WARN 'storm: wind above 60 knots'
  log 23:10:00 WARN 'lamp: flicker detected'
  log 23:59:00 INFO 'keeper: night shift ended'
  log 23:59:30 WARN 'storm: window in the lamp room cracked'
} | gzip -n -9 > /demo/logs/old/app-2023.log.gz

cat > /demo/data/fruits.csv <<'EOF'
name,color,price,qty
apple,red,0.50,40
banana,yellow,0.25,120
cherry,red,3.00,15
kiwi,green,0.40,60
lemon,yellow,0.30,35
plum,purple,0.60,25
strawberry,red,2.50,30
lime,green,0.35,50
EOF

printf '%s\t%s\n' ada 88 brook 92 cyd 75 dana 97 eli 81 fay 69 gus 90 > /demo/data/scores.tsv
printf '%s\n' anchor beacon anchor harbour lantern beacon anchor tide lantern reef > /demo/data/words.txt
seq 1 300 > /demo/data/numbers.txt

cat > /demo/src/main.py <<'EOF'
from util import clamp
from lib.text import shout


def main():
    print(shout("lamp on"))
    print(clamp(12, 0, 10))


if __name__ == "__main__":
    main()
EOF

cat > /demo/src/util.py <<'EOF'
def clamp(value, low, high):
    return max(low, min(value, high))
EOF
cp /demo/src/util.py /demo/src/lib/old_util.py

cat > /demo/src/lib/text.py <<'EOF'
def shout(message):
    return message.upper() + "!"


def whisper(message):
    return message.lower() + "..."
EOF
: > /demo/src/lib/__init__.py
printf '1.4.2\n' > /demo/src/VERSION

cat > /demo/config/app.conf <<'EOF'
# lighthouse service settings
name=lighthouse
host=localhost
port=8080
debug=true
log_level=info
EOF

cat > /demo/config/backup.conf <<'EOF'
target=/demo/backup
keep=7
EOF

cat > /demo/scripts/backup.sh <<'EOF'
#!/bin/bash
cp -r /demo/notes /demo/backup
EOF
cat > /demo/scripts/cleanup.sh <<'EOF'
#!/bin/bash
rm -f /demo/tmp/*.tmp
EOF
cat > /demo/scripts/report.sh <<'EOF'
#!/bin/bash
grep -c ERROR /demo/logs/app.log
EOF
chmod 755 /demo/scripts/cleanup.sh /demo/scripts/report.sh

printf 'not a real picture: %s\n' beach > /demo/photos/beach.jpeg
printf 'not a real picture: %s\n' cliff > /demo/photos/cliff.jpeg
printf 'not a real picture: %s\n' tower > /demo/photos/tower.jpg
printf 'not a real picture: %s\n' sunset > /demo/photos/sunset.png

printf 'scratch %s\n' a > /demo/tmp/a.tmp
printf 'scratch %s\n' b > /demo/tmp/b.tmp
printf 'scratch %s\n' c > /demo/tmp/cache/c.tmp
printf 'index\n' > /demo/tmp/cache/index.dat

# Fixed times (2023-05-13), before the instant of deterministic mode's clock (2023-06-01): an archive
# extracted in an episode never holds a time in its future.
touch -d @1684000000 /demo/notes/ideas.md /demo/data/words.txt /demo/config/app.conf
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@1684000000 \
  -cf /demo/archive/bundle.tar -C /demo notes/ideas.md data/words.txt config/app.conf

find /demo -exec touch -h -d @1684000000 {} +
`;
