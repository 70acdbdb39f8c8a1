import { Alert, Box, Button, Code, FileInput, Group, Image, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { callJson } from '../api/api-client.ts';
import { useSession } from '../api/session.tsx';
import { ModelSelect } from './model-select.tsx';
import { pageImages, readDataUrl, type PageImage } from './page-images.ts';

interface LayoutElement {
  readonly index: number;
  readonly label: string;
  /** Normalised [x1, y1, x2, y2]. */
  readonly bbox_2d: [number, number, number, number];
  readonly content: string;
}

interface LayoutAnswer {
  readonly md_results: string;
  readonly layout_details: LayoutElement[][];
}

const labelColors: Readonly<Record<string, string>> = { text: '#1c7ed6', table: '#e8590c', formula: '#9c36b5', image: '#2f9e44' };

/** OCR / layout parsing of an uploaded image or PDF, with each element's box drawn over its page. */
export function OcrPlayground() {
  const { key } = useSession();
  const [model, setModel] = useState('glm-ocr');
  const [file, setFile] = useState<File | null>(null);
  const [pages, setPages] = useState<PageImage[]>([]);
  const [answer, setAnswer] = useState<LayoutAnswer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (file === null) return;
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    try {
      const dataUrl = await readDataUrl(file);
      const [images, parsed] = await Promise.all([
        pageImages(file, dataUrl),
        callJson<LayoutAnswer>(key, '/paas/v4/layout_parsing', { body: { model, file: dataUrl } }),
      ]);
      setPages(images);
      setAnswer(parsed);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      <form onSubmit={submit} aria-label="OCR request">
        <Group align="end" grow>
          <ModelSelect value={model} onChange={setModel} />
          <FileInput label="Image or PDF" accept="image/png,image/jpeg,application/pdf" value={file} onChange={setFile} clearable />
          <Button type="submit" loading={busy} disabled={file === null}>
            Parse
          </Button>
        </Group>
      </form>
      {error !== undefined && (
        <Alert color="red" role="alert" title="Refused">
          {error}
        </Alert>
      )}
      {answer !== undefined &&
        pages.map((page, pageIndex) => (
          <Box key={pageIndex} pos="relative" maw={720} data-testid="ocr-page" style={{ border: '1px solid var(--mantine-color-gray-4)' }}>
            <Image src={page.url} alt={`Page ${pageIndex + 1}`} />
            <svg viewBox="0 0 1 1" preserveAspectRatio="none" width="100%" height="100%" style={{ position: 'absolute', inset: 0 }} aria-hidden="true">
              {(answer.layout_details[pageIndex] ?? []).map((element) => {
                const [x1, y1, x2, y2] = element.bbox_2d;
                return (
                  <rect
                    key={element.index}
                    data-testid="ocr-box"
                    x={x1}
                    y={y1}
                    width={x2 - x1}
                    height={y2 - y1}
                    fill="none"
                    stroke={labelColors[element.label] ?? '#e03131'}
                    strokeWidth={2}
                    vectorEffect="non-scaling-stroke"
                  />
                );
              })}
            </svg>
          </Box>
        ))}
      {answer !== undefined && (
        <>
          <Text size="sm" fw={500}>
            Markdown
          </Text>
          <Code block>{answer.md_results}</Code>
        </>
      )}
    </Stack>
  );
}
