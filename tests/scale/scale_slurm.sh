#!/bin/sh
# scale_slurm.sh - a real single-node Slurm on localhost (munged, slurmctld, slurmd started here as root, no
# systemd, no cgroups; stopped after, even on failure) runs contrib/slurm/xpstat-array.sbatch: a job array of one
# task per host of a generated 16-host run (given by its absolute path), then a dependent combine job. Each task's
# saved report must equal the one report --host-index makes of the run typed as a relative path; combined alone it
# must equal one-process report of that host; the combine job's report must equal one-process report over the run,
# byte for byte; a one-host run goes through the whole recipe (array, combine) to the same JSON and CSV as report. If the
# daemons cannot start, the test fails with their logs: it never skips.
set -u
xpstat=$1 xpgen=$2 recipe=$3
here=$(cd "$(dirname "$0")" && pwd)
# meson runs the test in the build directory with relative paths; the test works elsewhere.
abspath() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
xpstat=$(abspath "$xpstat") xpgen=$(abspath "$xpgen")
recipe=$(cd "$(dirname "$recipe")" && pwd)/$(basename "$recipe")
work=$(mktemp -d "${TMPDIR:-/tmp}/scale_slurm.XXXXXX") || exit 1
chmod 755 "$work"
. "$here/common.sh"
sl=$work/slurm
mkdir -p "$sl/state" "$sl/spool"
logs() {
	for f in "$sl"/*.log; do
		[ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
	done
}
stop() {
	for d in slurmd slurmctld munged; do
		[ -f "$sl/$d.pid" ] && kill "$(cat "$sl/$d.pid")" 2>/dev/null
	done
	sleep 1
	for d in slurmd slurmctld munged; do
		[ -f "$sl/$d.pid" ] && kill -9 "$(cat "$sl/$d.pid")" 2>/dev/null
	done
	rm -rf "$work"
}
trap stop EXIT
trap 'exit 1' HUP INT TERM
die() { echo "FAIL: $*"; logs; exit 1; }
[ "$(id -u)" = 0 ] || die "the Slurm test starts slurmd, which needs root (CI runs as root)"
for p in munged slurmctld slurmd sbatch squeue scontrol; do
	command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || die "$p is not installed (tools/test.sh installs slurm-wlm and munge)"
done
PATH=$PATH:/usr/sbin
# Two free TCP ports for slurmctld and slurmd (another Slurm may run on this machine).
ports=$(/usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))') || die "no free port"
set -- $ports
host=$(hostname -s)
head -c 1024 /dev/urandom >"$sl/munge.key" && chmod 400 "$sl/munge.key"
munged -f --key-file="$sl/munge.key" --socket="$sl/munge.sock" --pid-file="$sl/munged.pid" \
	--log-file="$sl/munged.log" --seed-file="$sl/munged.seed" || die "munged did not start"
cat >"$sl/slurm.conf" <<CONF
ClusterName=xpstat-scale
SlurmctldHost=$host
SlurmctldAddr=127.0.0.1
AuthType=auth/munge
AuthInfo=socket=$sl/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$1
SlurmdPort=$2
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=scale Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$sl/slurm.conf
slurmctld || die "slurmctld did not start"
slurmd || die "slurmd did not start"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	[ $i -lt 60 ] || die "the node did not come up: $(sinfo 2>&1)"
	sleep 1
done
# Wait for the jobs of the recipe (array and combine) to leave the queue.
wait_jobs() {
	i=0
	while [ -n "$(squeue -h -j "$1,$2" 2>/dev/null)" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || die "jobs $1 $2 still queued after 10 minutes: $(squeue 2>&1)"
		sleep 1
	done
}
job_state() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1; }
job_exit() { scontrol show job "$1" 2>/dev/null | grep -o ' ExitCode=[0-9:]*' | head -n 1 | tr -d ' '; }

# The 16-host run: one task per host, each saved report as report --host-index makes it.
make_run
# The run by its absolute path: saved reports name captures in their run directory, whatever path was typed.
jobs=$(cd "$work" && XPSTAT=$xpstat sh "$recipe" "$work/run" out) || die "sbatch: $jobs"
set -- $jobs
wait_jobs "$1" "$2"
for i in $(seq 0 15); do
	(cd "$work" && "$xpstat" report --quiet --host-index "$i" --format json -o "direct-$i.json.zst" run) || fail "report $i"
	cmp -s "$work/out/hosts/$i.json.zst" "$work/direct-$i.json.zst" || fail "array task $i differs from report --host-index $i"
done
one_host_expected 5
combine_equals out/hosts/5.json.zst 5
# The dependent combine ran after the array: the report of the 16 hosts, as one process writes it.
[ "$(job_state "$2")" = JobState=COMPLETED ] || fail "combine job: $(job_state "$2") $(cat "$work/out/logs/combine.out")"
(cd "$work" && "$xpstat" report --quiet --format json -o expected-run.json run) || fail "report of the run"
cmp -s "$work/out/report.json" "$work/expected-run.json" || fail "the Slurm recipe's report differs from report over the run"
# The array's reports give every analysis, and the whole report in every format, as one process over the run.
cd "$work" && combine_analysis_equals run out/hosts/*.json.zst
combine_report_equals run out/hosts/*.json.zst

# The recipe with an analysis: the 16 hosts' pod, as 'xpstat pod' over the run writes it.
jobs=$(cd "$work" && XPSTAT=$xpstat sh "$recipe" run out-pod json pod) || die "sbatch: $jobs"
set -- $jobs
wait_jobs "$1" "$2"
[ "$(job_state "$2")" = JobState=COMPLETED ] || fail "pod combine job: $(job_state "$2") $(cat "$work/out-pod/logs/combine.out")"
(cd "$work" && "$xpstat" pod --quiet --format json -o expected-pod.json run) || fail "pod of the run"
cmp -s "$work/out-pod/pod.json" "$work/expected-pod.json" || fail "Slurm recipe --analysis pod differs from pod"

# A one-host run through the whole recipe: array of one task, then combine, equal to report (JSON, CSV).
mkdir -p "$work/solo/run"
cp "$work/run/$(nth_file 9)" "$work/solo/run/"
(cd "$work/solo" && "$xpstat" report --quiet --format json -o expected.json run &&
	"$xpstat" report --quiet --format csv -o expected-csv run) || fail "report of the one-host run"
for f in json csv; do
	jobs=$(cd "$work/solo" && XPSTAT=$xpstat sh "$recipe" run "out-$f" $f) || die "sbatch: $jobs"
	set -- $jobs
	wait_jobs "$1" "$2"
	[ "$(job_state "$2")" = JobState=COMPLETED ] || fail "one-host combine job ($f): $(job_state "$2") $(cat "$work/solo/out-$f/logs/combine.out")"
done
cmp -s "$work/solo/out-json/report.json" "$work/solo/expected.json" || fail "Slurm recipe JSON differs from report"
diff -r "$work/solo/out-csv/report-csv" "$work/solo/expected-csv" >/dev/null || fail "Slurm recipe CSV differs from report"
[ $fails = 0 ] || logs
echo "scale-slurm: $fails failures"
[ $fails = 0 ]
