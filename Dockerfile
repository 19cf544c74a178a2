# contentapi server image (used by docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY pyproject.toml README.md alembic.ini ./
COPY src ./src
RUN pip install --no-cache-dir .
COPY content-types ./content-types
EXPOSE 1337
CMD ["contentapi", "serve", "--host", "0.0.0.0", "--port", "1337"]
