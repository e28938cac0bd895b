# One image for every process of deepresearch-bot: the Slack bot, the Teams bot and the RQ workers.
#   docker build -t deepresearch-bot .
#   docker run --rm --env-file .env -v deepresearch-data:/data deepresearch-bot worker
# The command is a `deepresearch` subcommand: worker | slack | teams | ask | index.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEEPRESEARCH_DATA_DIR=/data \
    LOG_LEVEL=INFO

# XeLaTeX with latexmk for report.pdf, and fonts for Latin, Greek, Cyrillic, Arabic, Hebrew,
# Devanagari, Thai, CJK and emoji (the same packages scripts/setup.sh installs on a Debian host).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      texlive-xetex texlive-latex-recommended texlive-latex-extra texlive-lang-cjk \
      texlive-fonts-recommended latexmk lmodern fontconfig \
      fonts-noto-core fonts-noto-cjk fonts-dejavu-core fonts-symbola poppler-utils \
      tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && fc-cache -f

# An unprivileged user owns the data dir (checkpoints, job store in embedded mode, artifacts).
RUN groupadd --system --gid 10001 deepresearch \
 && useradd --system --uid 10001 --gid deepresearch --home-dir /home/deepresearch --create-home \
      --shell /usr/sbin/nologin deepresearch \
 && mkdir -p /data /app \
 && chown deepresearch:deepresearch /data

WORKDIR /app
# Dependencies first (cached while only the code changes), then the code.
COPY pyproject.toml README.md ./
RUN mkdir -p engine jobs bots \
 && touch engine/__init__.py jobs/__init__.py bots/__init__.py \
 && pip install . \
 && pip uninstall -y deepresearch-bot \
 && rm -rf engine jobs bots
COPY engine ./engine
COPY jobs ./jobs
COPY bots ./bots
COPY manifests ./manifests
RUN pip install --no-deps . && deepresearch --help >/dev/null

USER deepresearch
# The language identifier's model, unpacked once into the image (~/.cache/deepresearch/langid), so
# that no container start unpacks it again (engine/langid_model.py).
RUN python -c "from engine.language import load_language_model; load_language_model()"
VOLUME ["/data"]
# Slack over HTTP (when SLACK_APP_TOKEN is unset) and Teams.
EXPOSE 3000 3978

# Healthy when an RQ worker of this container beats in Redis, or the bot's /healthz answers.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["python", "-m", "jobs.health"]

# tini reaps the workers' forked work horses and forwards SIGTERM (RQ then finishes or hands back
# its job: a turn cut short is re-run from its checkpoint by another worker).
ENTRYPOINT ["/usr/bin/tini", "--", "deepresearch"]
CMD ["worker"]
