# bash completion for pkgnote(1)
_pkgnote() {
        local cur prev words cword
        _init_completion || return
        local commands="show generate lint core pid ps list stamp scan deps"
        if [[ $cword -eq 1 ]]; then
                COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
                return
        fi
        local cmd=${words[1]} opts
        case $cmd in
        show) opts="--json --format --field --help" ;;
        generate)
                opts="--type --name --version --architecture --os --os-version --os-cpe --app-cpe
                      --debuginfod-url --rpm --metadata --root --os-release --no-os-release --format --output
                      --target --linker --ld --ldflags-style --dlopen --note-object --help" ;;
        lint) opts="--json --quiet --os-release --list-checks --help" ;;
        core) opts="--json --format --root --no-disk --all-threads --stats --help" ;;
        pid) opts="--json --root --no-database --stack --all-threads --help" ;;
        ps) opts="--json --format --cyclonedx-version --by-package --needs-restart --kernel --needs-reboot --sysfs --osrelease --no-kernel --user --exe --root --no-database --help" ;;
        list) opts="--json --group --group=signature --group=package --group=executable --top --format --output --state-dir --help" ;;
        stamp) opts="$(pkgnote stamp --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" ;;
        scan) opts="$(pkgnote scan --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" ;;
        deps) opts="--format --root --tree --rpm-generator --rpm-multifile --closure --verify --feature --all-features --priority --ignore-missing --json --packages --relative --help" ;;
        esac
        case $prev in
        --format | -F)
                case $cmd in
                generate) COMPREPLY=($(compgen -W "json note linker-script asm object ldflags gcc-specs clang-config response-file c-header" -- "$cur")) ;;
                scan | ps) COMPREPLY=($(compgen -W "table json spdx spdx3 cyclonedx" -- "$cur")) ;;
                deps) COMPREPLY=($(compgen -W "rpm deb json text dot" -- "$cur")) ;;
                list) COMPREPLY=($(compgen -W "text json html" -- "$cur")) ;;
                esac
                return ;;
        --cyclonedx-version) COMPREPLY=($(compgen -W "1.6 1.7 1.5" -- "$cur")); return ;;
        --rpm-generator) COMPREPLY=($(compgen -W "requires recommends suggests" -- "$cur")); return ;;
        --priority) COMPREPLY=($(compgen -W "required recommended suggested" -- "$cur")); return ;;
        --linker) COMPREPLY=($(compgen -W "bfd gold lld mold" -- "$cur")); return ;;
        --ldflags-style) COMPREPLY=($(compgen -W "shell make" -- "$cur")); return ;;
        --type) COMPREPLY=($(compgen -W "rpm deb apk alpm generic" -- "$cur")); return ;;
        --target | -t)
                COMPREPLY=($(compgen -W "x86_64 i686 aarch64 aarch64_be armhf armel s390x ppc64le ppc64 ppc riscv64 loongarch64 ELF32LE ELF32BE ELF64LE ELF64BE" -- "$cur"))
                return ;;
        --field | -f)
                COMPREPLY=($(compgen -W "type os osVersion name version architecture osCpe appCpe debugInfoUrl buildId elfType" -- "$cur"))
                return ;;
        --user | -u) [[ $cmd == ps ]] && { COMPREPLY=($(compgen -u -- "$cur")); return; } ;;
        --exe | -e) [[ $cmd == ps ]] && { _filedir; return; } ;;
        --root | --state-dir | -d | -r) _filedir -d; return ;;
        --output | -o | --ld | --metadata | --os-release) _filedir; return ;;
        esac
        if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        elif [[ $cmd == pid || $cmd == ps ]]; then
                _pids
        else
                _filedir
        fi
} && complete -F _pkgnote pkgnote
