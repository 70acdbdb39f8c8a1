import { Stack, Tabs, Title } from '@mantine/core';
import { ChatPlayground } from './chat-playground.tsx';
import { ImagePlayground, TranscriptionPlayground } from './media-playgrounds.tsx';
import { OcrPlayground } from './ocr-playground.tsx';
import { ReaderPlayground, TranslationPlayground, WebSearchPlayground } from './tool-playgrounds.tsx';

/** Try the API with the signed-in key: every call is the ordinary endpoint, under the key's policy. */
export function PlaygroundPage() {
  return (
    <Stack>
      <Title order={2}>Playground</Title>
      <Tabs defaultValue="chat" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="chat">Chat</Tabs.Tab>
          <Tabs.Tab value="images">Images</Tabs.Tab>
          <Tabs.Tab value="ocr">OCR</Tabs.Tab>
          <Tabs.Tab value="reader">Reader</Tabs.Tab>
          <Tabs.Tab value="search">Web search</Tabs.Tab>
          <Tabs.Tab value="transcription">Transcription</Tabs.Tab>
          <Tabs.Tab value="translation">Translation</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="chat" pt="md">
          <ChatPlayground />
        </Tabs.Panel>
        <Tabs.Panel value="images" pt="md">
          <ImagePlayground />
        </Tabs.Panel>
        <Tabs.Panel value="ocr" pt="md">
          <OcrPlayground />
        </Tabs.Panel>
        <Tabs.Panel value="reader" pt="md">
          <ReaderPlayground />
        </Tabs.Panel>
        <Tabs.Panel value="search" pt="md">
          <WebSearchPlayground />
        </Tabs.Panel>
        <Tabs.Panel value="transcription" pt="md">
          <TranscriptionPlayground />
        </Tabs.Panel>
        <Tabs.Panel value="translation" pt="md">
          <TranslationPlayground />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
