# contentapi server image (used by docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md alembic.ini ./
COPY src ./src
RUN pip install --no-cache-dir .
COPY content-types ./content-types
EXPOSE 1337
# Ready (200) only while the database answers and its migrations are current; the image has
# python but no curl. urlopen raises on a 503, so the command exits 1.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:1337/_ready', timeout=4)"]
CMD ["contentapi", "serve", "--host", "0.0.0.0", "--port", "1337"]
