# Archivist alone: the API, the web UI and the MCP server. No LLM and no vector database
# live in this image; point it at them with settings (see docker-compose.yml):
#   ARCHIVIST_STORAGE__QDRANT_URL    a Qdrant server (empty = embedded Qdrant in /data)
#   ARCHIVIST_STORAGE__DATABASE_URL  PostgreSQL for every table and (pgvector) the vectors
#   ARCHIVIST_LLM__OLLAMA_BASE_URL   an Ollama server (or ARCHIVIST_LLM__MODEL=openai:... etc.)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1 \
    ARCHIVIST_DATA_DIR=/data \
    ARCHIVIST_SERVER__HOST=0.0.0.0 \
    ARCHIVIST_SERVER__PORT=8000

WORKDIR /app

# The CPU build of torch (the default wheel pulls several GB of CUDA libraries).
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch

COPY pyproject.toml README.md* ./
COPY src ./src
RUN pip install ".[server,mcp,openai,postgres]" \
    && useradd --create-home --uid 1000 archivist \
    && mkdir -p /data && chown archivist:archivist /data

USER archivist
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)" || exit 1

ENTRYPOINT ["archivist"]
CMD ["serve"]
