# SPDX-License-Identifier: GPL-2.0
# bash completion for numa-advise-ctl
_numa_advise_ctl()
{
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "status policy mode set scope tasks nodes advice apply trace top stats --json --help --version" -- "$cur"))
		return
	fi
	case $prev in
	--sort) COMPREPLY=($(compgen -W "runtime migrations pid" -- "$cur")); return ;;
	--node | --top | --duration | --iterations | --comm) return ;;
	esac
	case $cmd in
	policy) [ "$prev" = policy ] && COMPREPLY=($(compgen -W "none home distance" -- "$cur")) ;;
	mode) [ "$prev" = mode ] && COMPREPLY=($(compgen -W "advise enforce" -- "$cur")) ;;
	set) [ "$prev" = set ] && COMPREPLY=($(compgen -W "interval_ms min_move_ms gain_pm margin_pm imbalance_pct policy mode" -- "$cur")) ;;
	scope)
		case $prev in
		scope) COMPREPLY=($(compgen -W "show clear include exclude" -- "$cur")) ;;
		include | exclude) COMPREPLY=($(compgen -W "pid comm cgroup" -- "$cur")) ;;
		esac ;;
	tasks) COMPREPLY=($(compgen -W "--process --node --comm --sort --top --json --help" -- "$cur")) ;;
	advice) COMPREPLY=($(compgen -W "--comm --json --help" -- "$cur")) ;;
	apply) COMPREPLY=($(compgen -W "--memory --comm --help" -- "$cur")) ;;
	trace) COMPREPLY=($(compgen -W "--duration --help" -- "$cur")) ;;
	top) COMPREPLY=($(compgen -W "--iterations --help" -- "$cur")) ;;
	stats) COMPREPLY=($(compgen -W "--prometheus --json --help" -- "$cur")) ;;
	*) COMPREPLY=($(compgen -W "--json --help" -- "$cur")) ;;
	esac
}
complete -F _numa_advise_ctl numa-advise-ctl
