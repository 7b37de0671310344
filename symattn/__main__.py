try:
    from symattn.cli.app import run
except KeyboardInterrupt:   # Ctrl-C while Python is still starting symattn
    import sys

    print("symattn: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

run()
